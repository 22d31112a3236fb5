/** Compiles src/ to dist/ and the operator's commands to dist/scripts/ (see build-server.mjs); resolves to the output directory. */
export function buildServer(opts?: { quiet?: boolean }): Promise<string>;
/** The commands compiled to dist/scripts/NAME.js. */
export const COMMANDS: string[];
