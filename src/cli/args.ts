// Minimal flag parsing: positional words plus --name value / --name=value / --flag.
export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | true>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2);
      if (inline !== undefined) flags[name] = inline;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[name] = argv[++i];
      else flags[name] = true;
    } else {
      positional.push(arg);
    }
  }
  return { positional, flags };
}

export function listFlag(value: string | true | undefined): string[] | undefined {
  if (value === undefined || value === true) return undefined;
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}
