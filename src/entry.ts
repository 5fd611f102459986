import { main } from './main.ts';

// The executable's entry point (bundle and single binary).
void main(process.argv.slice(2), process.env);
