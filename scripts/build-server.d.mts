/** Compiles src/ to dist/ (see build-server.mjs); resolves to the output directory. */
export function buildServer(opts?: { quiet?: boolean }): Promise<string>;
