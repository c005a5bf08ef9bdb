// Types for scripts/build.mjs, imported by the bench's start-time scenario.
export const STAMP: string;
export function buildIsFresh(): boolean;
export function build(): Promise<{ files: number; ms: number }>;
