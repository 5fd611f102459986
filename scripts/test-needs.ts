import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// `npm test`'s first step (the `pretest` script): the suite runs real parts, and these
// come from Debian's packages, not from npm. What is missing is installed with apt-get
// when this user may (root, or sudo without a password); otherwise the run stops here
// with one line that names the packages and the command that installs them, instead
// of failing minutes later in the first test that needs one.

interface Need {
  /** The Debian package that brings it. */
  package: string;
  /** True when it is already on this machine. */
  present: () => boolean;
  /** What the suite uses it for. */
  why: string;
}

const onPath = (command: string) => () => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const file = (path: string) => () => existsSync(path);

const needs: Need[] = [
  { package: 'binutils', present: onPath('strip'), why: 'strips the single binary' },
  { package: 'socat', present: onPath('socat'), why: 'pseudo-terminal pairs for the serial PLC tests' },
  { package: 'chromium-headless-shell', present: onPath('chromium-headless-shell'), why: 'the HMI and EventSource tests in a real browser' },
  { package: 'curl', present: onPath('curl'), why: "the README's quick start, run as written" },
  { package: 'git', present: onPath('git'), why: 'the build names its commit' },
  { package: 'nats-server', present: onPath('nats-server'), why: 'the hub link and the pair against real NATS JetStream' },
  { package: 'iproute2', present: onPath('ip'), why: "the pair's boxes in network namespaces of their own" },
  { package: 'keepalived', present: onPath('keepalived'), why: "the pair's floating address" },
  { package: 'systemd', present: onPath('systemd-analyze'), why: "checks install-service's unit" },
  { package: 'prometheus', present: onPath('promtool'), why: 'promtool checks /metrics' },
  { package: 'binutils-aarch64-linux-gnu', present: onPath('aarch64-linux-gnu-strip'), why: 'strips the arm64 binary' },
  { package: 'qemu-user', present: onPath('qemu-aarch64'), why: 'runs the arm64 binary' },
  { package: 'libc6-arm64-cross', present: file('/usr/aarch64-linux-gnu/lib/libc.so.6'), why: "the arm64 binary's C library" },
  {
    package: 'libstdc++6-arm64-cross',
    present: file('/usr/aarch64-linux-gnu/lib/libstdc++.so.6'),
    why: "the arm64 binary's C++ library",
  },
];

/** Runs apt-get (through `root`'s prefix) with these arguments. */
function apt(root: string[], args: string[], env: NodeJS.ProcessEnv): boolean {
  const [file, ...rest] = [...root, 'apt-get', ...args];
  return spawnSync(file!, rest, { stdio: 'inherit', env }).status === 0;
}

/** The prefix that runs apt-get as root, or undefined when this user cannot. */
function asRoot(): string[] | undefined {
  if (!onPath('apt-get')()) return undefined;
  if (process.getuid?.() === 0) return [];
  if (onPath('sudo')() && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return undefined;
}

function main(): void {
  const missing = needs.filter((need) => !need.present());
  if (missing.length === 0) return;
  const packages = missing.map((need) => need.package);
  const root = asRoot();
  if (root === undefined) {
    console.error(
      `npm test needs Debian packages that are missing: ${packages.join(' ')}; ` +
        `install them with: sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`,
    );
    process.exit(1);
  }
  console.log(`npm test: installing ${packages.join(', ')} (${missing.map((need) => need.why).join('; ')})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const started = Date.now();
  const done = apt(root, ['update', '-qq'], env) && apt(root, ['install', '-y', '-qq', '--no-install-recommends', ...packages], env);
  const still = needs.filter((need) => !need.present()).map((need) => need.package);
  if (!done || still.length > 0) {
    console.error(
      `npm test could not install ${still.join(' ') || packages.join(' ')}; ` +
        `install them with: sudo apt-get install -y --no-install-recommends ${still.join(' ') || packages.join(' ')}`,
    );
    process.exit(1);
  }
  console.log(`npm test: installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

if (import.meta.main) main();
