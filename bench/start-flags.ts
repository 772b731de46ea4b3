import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The Node flags `npm start` gives the server (the root package's start
 * script, decision 032), so a benchmark runs the embedded server as a person
 * who typed `npm start` does.
 */
export function startFlags(): string[] {
  const path = fileURLToPath(new URL('../package.json', import.meta.url));
  const { scripts } = JSON.parse(readFileSync(path, 'utf8')) as { scripts: Record<string, string> };
  const flags = /node ((?:--\S+ )*)packages\/server\/dist\/main\.js serve/.exec(
    scripts.start ?? '',
  );
  if (!flags) throw new Error('package.json: the start script no longer runs dist/main.js serve');
  return flags[1]!.split(' ').filter(Boolean);
}
