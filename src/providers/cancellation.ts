// How a chat request tells its upstream call that the client has left. An EventEmitter with
// `aborted` and `reason`, which undici accepts as a request's `signal`: a real AbortSignal costs
// about 3 µs to create and undici's listener on it about as much again, on every request
// (10–16 µs of CPU per request in a loopback measurement, bench/NOTES.md). Code that needs an
// AbortSignal (timers, fetch) asks for `signal`, created on first use.
import { EventEmitter } from 'node:events';

export class Cancellation extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | undefined;

  /** Emits 'abort' once; later calls do nothing. */
  cancel(reason: unknown = new DOMException('The operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.emit('abort');
  }

  /** An AbortSignal that follows this cancellation. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}
