// The line the bench waits for from its own helper processes, which listen on port 0.
export function announceReady(port: number): void {
  process.stdout.write(`ready ${port}\n`);
}
