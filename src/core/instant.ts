const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ]((\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Milliseconds since the epoch of an ISO 8601 date or date-time, or NaN. A time without an
 * offset is UTC, as Letta (Python) reads it; JavaScript alone would take it as local time. A
 * date or time that does not exist (`2021-02-29`, `24:00`, `12:60`) is NaN: JavaScript would
 * roll it over into the next day or hour, and a passage would carry a date nobody sent.
 */
export function instantMs(text: string): number {
  const match = ISO_DATE_TIME.exec(text.trim());
  if (!match) return Number.NaN;
  const [, year, month, day, time, hours, minutes, seconds, zone] = match;
  if (!realDate(Number(year), Number(month), Number(day))) return Number.NaN;
  if (Number(hours ?? 0) > 23 || Number(minutes ?? 0) > 59 || Number(seconds ?? 0) > 59)
    return Number.NaN;
  const date = `${year}-${month}-${day}`;
  if (!time) return Date.parse(`${date}T00:00:00Z`);
  const offset =
    !zone || zone.toUpperCase() === "Z"
      ? "Z"
      : zone.includes(":")
        ? zone
        : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  return Date.parse(`${date}T${time}${offset}`);
}

/** Whether the calendar has this day (proleptic Gregorian, as JavaScript's dates). */
function realDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
