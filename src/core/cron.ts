/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week), in UTC: `*`, numbers,
 * ranges `a-b`, steps `*\/n` and `a-b/n`, lists `a,b`. Day-of-week 0 or 7 is Sunday. As in cron,
 * when both day fields are restricted a day matching either fires.
 */
export interface Cron {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  anyDay: boolean;
  anyWeekday: boolean;
}

const FIELDS = [
  ["minute", 0, 59],
  ["hour", 0, 23],
  ["day of month", 1, 31],
  ["month", 1, 12],
  ["day of week", 0, 7],
] as const;

/** Parses an expression; throws an Error naming the field that is wrong. */
export function parseCron(expression: string): Cron {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error("a cron expression has five fields: m h dom mon dow");
  const sets = parts.map((part, i) => {
    const [name, min, max] = FIELDS[i] ?? FIELDS[0];
    return parseField(part, name, min, max);
  });
  const [minutes, hours, days, months, weekdays] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  if (weekdays.delete(7)) weekdays.add(0);
  return {
    minutes,
    hours,
    days,
    months,
    weekdays,
    anyDay: parts[2] === "*",
    anyWeekday: parts[4] === "*",
  };
}

function parseField(text: string, name: string, min: number, max: number): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(",")) {
    const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
    if (!match) throw new Error(`the ${name} field '${text}' is not cron syntax`);
    const from = match[1] === "*" ? min : Number(match[2]);
    const to = match[1] === "*" ? max : match[3] !== undefined ? Number(match[3]) : from;
    const step = match[4] !== undefined ? Number(match[4]) : 1;
    const last = match[1] !== "*" && match[3] === undefined && match[4] !== undefined ? max : to;
    if (from < min || last > max || from > last || step < 1) {
      throw new Error(`the ${name} field '${text}' is outside ${min}-${max}`);
    }
    for (let v = from; v <= last; v += step) values.add(v);
  }
  return values;
}

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** The first minute strictly after `afterMs` the expression matches; null if none in 5 years. */
export function nextCronTime(cron: Cron, afterMs: number): number | null {
  let t = Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const end = afterMs + 5 * 366 * DAY_MS;
  while (t <= end) {
    const d = new Date(t);
    if (!dayMatches(cron, d)) {
      t = Math.floor(t / DAY_MS) * DAY_MS + DAY_MS;
      continue;
    }
    if (cron.hours.has(d.getUTCHours()) && cron.minutes.has(d.getUTCMinutes())) return t;
    t += MINUTE_MS;
  }
  return null;
}

function dayMatches(cron: Cron, d: Date): boolean {
  if (!cron.months.has(d.getUTCMonth() + 1)) return false;
  const day = cron.days.has(d.getUTCDate());
  const weekday = cron.weekdays.has(d.getUTCDay());
  if (cron.anyDay && cron.anyWeekday) return true;
  if (cron.anyDay) return weekday;
  if (cron.anyWeekday) return day;
  return day || weekday;
}
