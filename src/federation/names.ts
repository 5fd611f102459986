// Subjects, stream and consumer names of a site (docs/federation.md, "Subjects and streams").

export interface SiteNames {
  site: string;
  /** The hall's stream: its events and the answers to the hub's commands. */
  stream: string;
  /** The stream of the hub's commands to this hall. */
  commandStream: string;
  /** The durable consumer of the commands. */
  consumer: string;
  eventSubjects: string;
  resultSubjects: string;
  commandSubjects: string;
  /** `wms.<site>.commands.`: what a command's subject starts with, before its kind. */
  commandPrefix: string;
  eventSubject(type: string): string;
  resultSubject(commandId: string): string;
  /** The message id of an event: `<site>-<eventId>`. */
  msgId(eventId: number): string;
  /** The event id of a message id of this site; undefined for any other. */
  eventIdOf(msgId: string | undefined): number | undefined;
}

export function siteNames(site: string): SiteNames {
  const upper = site.toUpperCase();
  const msgIdPattern = new RegExp(`^${site}-(\\d+)$`);
  return {
    site,
    stream: `WMS_${upper}`,
    commandStream: `WMS_${upper}_COMMANDS`,
    consumer: 'appliance',
    eventSubjects: `wms.${site}.events.>`,
    resultSubjects: `wms.${site}.results.>`,
    commandSubjects: `wms.${site}.commands.>`,
    commandPrefix: `wms.${site}.commands.`,
    eventSubject: (type) => `wms.${site}.events.${type}`,
    resultSubject: (commandId) => `wms.${site}.results.${commandId}`,
    msgId: (eventId) => `${site}-${eventId}`,
    eventIdOf(msgId) {
      const match = msgId === undefined ? null : msgIdPattern.exec(msgId);
      return match ? Number(match[1]) : undefined;
    },
  };
}
