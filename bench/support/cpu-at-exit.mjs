// Preloaded into a spawned CLI (`node --import`): at exit, writes its CPU time (process.cpuUsage(),
// microseconds) to $BENCH_CPU_FILE, a figure that the machine's load does not inflate as it does wall time.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_CPU_FILE;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(process.cpuUsage())));
