// SQL files are bundled as text (esbuild `loader: {'.sql': 'text'}`, and the same in the test runner).
declare module '*.sql' {
  const sql: string;
  export default sql;
}
