import { describe, expect, it } from "vitest";
import { nextCronTime, parseCron } from "./cron.js";

const at = (iso: string) => Date.parse(iso);
const next = (expression: string, after: string) =>
  new Date(nextCronTime(parseCron(expression), at(after)) ?? 0).toISOString();

describe("cron expressions", () => {
  it("finds the next matching minute, strictly after the time given", () => {
    expect(next("*/15 * * * *", "2026-01-01T10:07:30Z")).toBe("2026-01-01T10:15:00.000Z");
    expect(next("0 9 * * *", "2026-01-01T09:00:00Z")).toBe("2026-01-02T09:00:00.000Z");
    expect(next("30 8 1 * *", "2026-01-15T00:00:00Z")).toBe("2026-02-01T08:30:00.000Z");
  });

  it("reads weekdays (7 is Sunday) and fires on either day field when both are set", () => {
    // 2026-01-01 is a Thursday.
    expect(next("0 12 * * 1-5", "2026-01-02T13:00:00Z")).toBe("2026-01-05T12:00:00.000Z");
    expect(next("0 0 * * 7", "2026-01-01T00:00:00Z")).toBe("2026-01-04T00:00:00.000Z");
    expect(next("0 0 10 * 6", "2026-01-01T00:00:00Z")).toBe("2026-01-03T00:00:00.000Z");
  });

  it("refuses what is not cron, naming the field", () => {
    expect(() => parseCron("* * * *")).toThrow(/five fields/);
    expect(() => parseCron("61 * * * *")).toThrow(/minute/);
    expect(() => parseCron("* * * JAN *")).toThrow(/month/);
  });

  it("answers null for a date that never comes", () => {
    expect(nextCronTime(parseCron("0 0 31 2 *"), at("2026-01-01T00:00:00Z"))).toBeNull();
  });
});
