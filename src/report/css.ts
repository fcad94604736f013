// The page's only styling, inline (the CSP allows no other). System fonts: no web font to fetch. Popovers
// show on hover and on keyboard focus; print hides them, sets citations as superscripts and prints URLs.
export const CSS = `
:root{color-scheme:light dark;--bg:#fdfdfc;--fg:#1c1c1c;--muted:#555;--rule:#d8d8d4;--link:#0b57d0;
--pop:#fff;--popfg:#1c1c1c;--mark:#fff1b8;--markfg:#1c1c1c;--flag:#a4262c;--code:#f2f2ef}
@media (prefers-color-scheme:dark){:root{--bg:#17181a;--fg:#e6e6e3;--muted:#a9a9a4;--rule:#3a3b3e;
--link:#8ab4f8;--pop:#26282b;--popfg:#ecece9;--mark:#5c4a00;--markfg:#fff8dc;--flag:#ff8a80;--code:#232427}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);
font:1.0625rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;overflow-wrap:anywhere}
main{max-width:42rem;margin:0 auto;padding:2rem 1.25rem 4rem;position:relative}
main>*{position:relative}
header.run h1{font-size:1.9rem;line-height:1.25;margin:0 0 .5rem}
.meta{color:var(--muted);font-size:.9rem;margin:0 0 1.5rem}
.meta span+span::before{content:" · "}
.question{font-style:italic;color:var(--muted)}
h1,h2,h3,h4{line-height:1.3}
h2{margin-top:2.2rem;border-bottom:1px solid var(--rule);padding-bottom:.2rem}
a{color:var(--link)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code{background:var(--code);padding:.1em .3em;border-radius:3px}
pre{background:var(--code);padding:.8rem 1rem;overflow-x:auto;border-radius:4px;line-height:1.45}
pre code{background:none;padding:0}
blockquote{margin:1rem 0;padding:0 1rem;border-left:3px solid var(--rule);color:var(--muted)}
table{border-collapse:collapse;width:100%;margin:1rem 0;font-size:.95rem}
th,td{border:1px solid var(--rule);padding:.35rem .5rem;vertical-align:top}
th{text-align:left;overflow-wrap:normal;word-break:keep-all}
nav.toc{border:1px solid var(--rule);border-radius:4px;padding:.5rem 1rem;margin:0 0 1.5rem}
nav.toc h2{font-size:1rem;margin:.3rem 0;border:0}
nav.toc ul{margin:.2rem 0;padding-left:1.2rem}
.notice{border-left:3px solid var(--flag);padding:.3rem .8rem;margin:1rem 0}
.c{position:static}
.cite,.flagmark{text-decoration:none;font-size:.8em;vertical-align:.25em;padding:0 .1em;border-radius:2px}
.cite:focus-visible,.flagmark:focus-visible{outline:2px solid var(--link);outline-offset:1px}
.dangling{color:var(--flag);font-size:.8em;vertical-align:.25em}
.ev{display:none;position:absolute;left:0;right:0;z-index:2;margin-top:1.4em;padding:.6rem .8rem;
background:var(--pop);color:var(--popfg);border:1px solid var(--rule);border-radius:6px;
box-shadow:0 4px 16px rgba(0,0,0,.18);font-size:.92rem;line-height:1.5;font-style:normal;font-weight:normal;
text-align:left;white-space:normal}
.c:hover>.ev,.c:focus-within>.ev{display:block}
.ev-title{display:block;font-weight:600}
.ev q{display:block;margin:.3rem 0;font-style:italic}
.ev-where{color:var(--muted);margin-right:.5rem}
.ev-none{display:block;color:var(--muted)}
mark.flag{background:var(--mark);color:var(--markfg);text-decoration:underline wavy var(--flag);
text-decoration-thickness:1px;text-underline-offset:3px}
.flagmark{color:var(--flag);font-weight:700}
tr.flag td{background:var(--mark);color:var(--markfg)}
.checks{color:var(--muted);font-size:.9em}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.sources li,.flags li{margin:.4rem 0}
.sources li:target,.flags li:target{background:var(--mark);color:var(--markfg)}
.src-meta{color:var(--muted);font-size:.9rem}
.img{color:var(--muted)}
footer{color:var(--muted);font-size:.85rem;margin-top:3rem;border-top:1px solid var(--rule);padding-top:.5rem}
@media (max-width:30rem){body{font-size:1rem}main{padding:1.25rem .9rem 3rem}header.run h1{font-size:1.5rem}}
@media print{
:root{--bg:#fff;--fg:#000;--muted:#444;--link:#000;--mark:#fff;--markfg:#000}
body{font:11pt/1.5 Georgia,"Times New Roman",serif}
main{max-width:none;padding:0}
.ev,nav.toc,.flagmark{display:none!important}
.cite{vertical-align:super;font-size:.7em;color:#000}
mark.flag{background:none;text-decoration:underline dotted}
pre,blockquote,table,tr{break-inside:avoid}
h2,h3{break-after:avoid}
}
`;
