const ISO_DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Milliseconds since the epoch of an ISO 8601 date or date-time, or NaN. A time without an
 * offset is UTC, as Letta (Python) reads it; JavaScript alone would take it as local time.
 */
export function instantMs(text: string): number {
  const match = ISO_DATE_TIME.exec(text.trim());
  if (!match) return Number.NaN;
  const [, date, time, zone] = match;
  if (!time) return Date.parse(`${date}T00:00:00Z`);
  const offset =
    !zone || zone.toUpperCase() === "Z"
      ? "Z"
      : zone.includes(":")
        ? zone
        : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  return Date.parse(`${date}T${time}${offset}`);
}
