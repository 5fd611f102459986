// The style sheet is imported for esbuild, which writes it beside the script (app-<hash>.css).
declare module '*.css';
