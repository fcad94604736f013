// The floor for a batch on this machine, measured beside it: a bare Node process making the same calls
// to the same loopback model — per question a plan, then three extractions at once, then a write, with
// `parallel` questions at a time — and nothing else (no SDK, no documents, no database).
// Usage: node bench/support/bare-client.mjs <base url> <questions> <parallel>   → prints the span in ms
const [base, questions, parallel] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];

const call = async (system, question) => {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'm',
      stream: true,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: question },
      ],
    }),
  });
  await res.text();
};

let next = 0;
const worker = async () => {
  while (next < questions) {
    const question = `What is the limit of item ${next++}?`;
    await call('You plan research', question);
    await Promise.all([1, 2, 3].map(() => call('You extract facts', question)));
    await call('You write', question);
  }
};
const started = performance.now();
await Promise.all(Array.from({ length: parallel }, worker));
console.log((performance.now() - started).toFixed(1));
