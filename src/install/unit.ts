// The systemd unit of the appliance. The service may write its data directory and
// nothing else, holds no capability unless it must bind a port below 1024, and keeps
// the devices visible: a PLC on a serial line is a /dev/tty* the dialout group opens.

export const UNIT_NAME = 'wms.service';
export const UNIT_DIR = '/etc/systemd/system';

interface UnitOptions {
  user: string;
  dataDir: string;
  bin: string;
  /** Written into ExecStart when given; else the appliance's own setting (default 8080) applies. */
  port?: number | undefined;
}

/** Ports below this need CAP_NET_BIND_SERVICE. */
const PRIVILEGED_PORTS = 1024;

export function serviceUnit(o: UnitOptions): string {
  const privileged = o.port !== undefined && o.port < PRIVILEGED_PORTS;
  const exec = [o.bin, '--data-dir', o.dataDir, ...(o.port !== undefined ? ['--port', String(o.port)] : [])].join(' ');
  return `# The warehouse appliance. Written by \`wms install-service\`: re-run it to change
# this file, \`wms install-service --uninstall\` to remove it. Local additions belong in
# a drop-in (systemctl edit wms), which a re-install leaves alone.

[Unit]
Description=Warehouse appliance (REST API and conveyor PLC link)
After=network-online.target
Wants=network-online.target
# An appliance keeps trying: no limit on restarts.
StartLimitIntervalSec=0

[Service]
Type=simple
User=${o.user}
Group=${o.user}
# Serial PLC lines are /dev/tty* devices of the group dialout.
SupplementaryGroups=dialout
WorkingDirectory=${o.dataDir}
ExecStart=${exec}
Restart=always
RestartSec=2
# Exit code 2 is a bad setting: restarting cannot fix it, the journal names it.
RestartPreventExitStatus=2
# SIGTERM: the appliance finishes what it is writing and exits.
TimeoutStopSec=30
SyslogIdentifier=wms
UMask=0077
# glibc serves blocks of 128 KiB and more (list chunks, socket buffers) from mappings of
# their own and unmaps them when freed. Left to itself it raises that bound (up to
# 32 MiB) once big blocks come and go, and they then land in the main heap among
# long-lived ones: after a busy hour the heap keeps its high water for good
# (npm run bench:soak at 1 M locations: 357-359 MB held after the load, not 184-188).
Environment=MALLOC_MMAP_THRESHOLD_=131072
# The conveyor thread raises its priority to nice -10 (server.conveyorNice), so that
# other processes on the box do not keep a PLC answer waiting for a core; this allows
# that much and no more. Its other threads run 10 below it.
LimitNICE=-10

# Hardening: the file system is read-only except the data directory.
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths=${o.dataDir}
PrivateTmp=yes
ProtectHome=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectHostname=yes
ProtectProc=invisible
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
LockPersonality=yes
PrivateMounts=yes
RemoveIPC=yes
SystemCallArchitectures=native
# System calls an appliance never makes; refused with EPERM rather than killing it.
SystemCallFilter=~@clock @cpu-emulation @debug @module @mount @obsolete @privileged @raw-io @reboot @swap
SystemCallErrorNumber=EPERM
${
  privileged
    ? `# Port ${o.port} is below ${PRIVILEGED_PORTS}: the one capability the service holds.
CapabilityBoundingSet=CAP_NET_BIND_SERVICE
AmbientCapabilities=CAP_NET_BIND_SERVICE`
    : `CapabilityBoundingSet=`
}
# Left off on purpose: PrivateDevices and ProtectClock (both close /dev to the serial
# lines), MemoryDenyWriteExecute (the JavaScript engine compiles code at run time).

[Install]
WantedBy=multi-user.target
`;
}

/** The values an installed unit was written with, for an uninstall without options. */
export function readUnit(text: string): Partial<UnitOptions> {
  const found: Partial<UnitOptions> = {};
  const user = /^User=(\S+)$/m.exec(text);
  if (user) found.user = user[1]!;
  const exec = /^ExecStart=(\S+)(.*)$/m.exec(text);
  if (exec) {
    found.bin = exec[1]!;
    const dataDir = /--data-dir\s+(\S+)/.exec(exec[2]!);
    if (dataDir) found.dataDir = dataDir[1]!;
  }
  return found;
}
