/** Compiles src/ to dist/ and the operator's commands to dist/scripts/ (see build-server.mjs); resolves to the output directory. */
export function buildServer(opts?: { quiet?: boolean }): Promise<string>;
/** The commands compiled to dist/scripts/NAME.js. */
export const COMMANDS: string[];
/** The packages dist/main.js loads from node_modules instead of bundling them. */
export const EXTERNAL: string[];
