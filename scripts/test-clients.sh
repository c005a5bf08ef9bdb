#!/usr/bin/env bash
# `npm run test:clients`: drives real client programs through gengate (test/clients/, vitest.clients.config.ts).
# Claude Code ships a native binary (its platform package is about 190 MB), so it is installed here,
# into .clients/ (git-ignored, never into package.json), the first time only, at a pinned version.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE_VERSION="2.1.332"
PREFIX=".clients"
BIN="$PREFIX/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
INSTALLED="$PREFIX/node_modules/@anthropic-ai/claude-code/package.json"

node scripts/ensure-deps.mjs

if [ -z "${CLAUDE_CODE_BIN:-}" ]; then
  if [ ! -x "$BIN" ] || ! grep -q "\"version\": \"$CLAUDE_CODE_VERSION\"" "$INSTALLED" 2>/dev/null; then
    echo "[test:clients] installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION into $PREFIX/"
    mkdir -p "$PREFIX"
    npm install --prefix "$PREFIX" --no-save --no-audit --no-fund "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
  fi
  export CLAUDE_CODE_BIN="$PWD/$BIN"
fi
"$CLAUDE_CODE_BIN" --version

exec npx vitest run -c vitest.clients.config.ts "$@"
