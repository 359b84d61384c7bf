import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { instantMs } from "./instant.js";

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

describe("ISO 8601 instants as Letta's clients send them", () => {
  it("reads every real date-time as UTC, with or without an offset", () => {
    const when = fc.date({
      min: new Date("1900-01-01T00:00:00Z"),
      max: new Date("2200-12-31T23:59:59Z"),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(when, (date) => {
        const iso = date.toISOString();
        expect(instantMs(iso)).toBe(date.getTime());
        expect(instantMs(iso.replace("Z", ""))).toBe(date.getTime());
        expect(instantMs(iso.replace("Z", "+00:00"))).toBe(date.getTime());
        expect(instantMs(iso.slice(0, 10))).toBe(Date.parse(`${iso.slice(0, 10)}T00:00:00Z`));
      }),
    );
  });

  it("refuses a day or time the calendar does not have, instead of rolling it over", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1900, max: 2200 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const text = `${year}-${pad(month)}-${pad(day)}T12:00:00Z`;
          const real = new Date(Date.UTC(year, month - 1, day)).getUTCMonth() === month - 1;
          expect(Number.isNaN(instantMs(text))).toBe(!real);
        },
      ),
    );
    for (const text of [
      "2021-02-29T12:00:00Z",
      "2020-04-31",
      "2021-01-01T24:00:00Z",
      "2021-01-01T12:60:00Z",
      "2021-13-01",
    ]) {
      expect(instantMs(text), text).toBeNaN();
    }
    expect(instantMs("2020-02-29T12:00:00Z")).toBe(Date.UTC(2020, 1, 29, 12));
  });
});
