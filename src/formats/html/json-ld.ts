// Script-rendered pages often carry their article as schema.org JSON-LD even when the HTML does not.

/** `articleBody` from the page's JSON-LD (schema.org Article), the longest when there are several. */
export function jsonLdArticleBody(html: string): string | undefined {
  let best: string | undefined;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const body = (value as { articleBody?: unknown }).articleBody;
      if (typeof body === 'string' && body.length > (best?.length ?? 0)) best = body;
      for (const v of Object.values(value)) if (v && typeof v === 'object') visit(v);
    }
  };
  for (const m of html.matchAll(
    /<script[^>]*type=["']?application\/ld\+json["']?[^>]*>([\s\S]*?)<\/script>/gi,
  )) {
    try {
      visit(JSON.parse(m[1]!));
    } catch {
      // Broken JSON-LD is common (trailing commas, two objects): take the articleBody string on its own.
      const literal = /"articleBody"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(m[1]!)?.[1];
      try {
        if (literal) visit({ articleBody: JSON.parse(literal) });
      } catch {
        // Not even the string is valid: the HTML itself is still read.
      }
    }
  }
  // Paragraphs in articleBody are often glued together ("moons.The find"): split them again, and
  // separate paragraphs with a blank line as the Markdown from the HTML does.
  return best
    ?.replace(/<[^>]+>/g, ' ')
    .replace(/([a-z0-9][.!?][”"’]?)(?=[A-Z])/g, '$1\n')
    .replace(/[ \t]*(\r?\n\s*)+/g, '\n\n')
    .trim();
}
