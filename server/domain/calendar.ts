// RFC 3339 `full-date` and `date-time` with the calendar checked (§5.7: "2023-02-29" and
// "2023-04-31" are no dates). The validator's default (fast) formats check only the digits' shape,
// and Date.parse rolls such a day over into the next month; both would take a day that never was.

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// time-hour 00-23, minute 00-59, second 00-60 (a leap second), optional fraction, Z or an offset.
const TIME = /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(z|[+-]([01]\d|2[0-3]):[0-5]\d)$/i;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const isLeapYear = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** An RFC 3339 full-date (`YYYY-MM-DD`) naming a day of the calendar. */
export function isFullDate(text: string): boolean {
  const match = FULL_DATE.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] as number));
}

/** An RFC 3339 date-time (`T` or `t`, `Z` or an offset) on a day of the calendar. */
export function isDateTime(text: string): boolean {
  const t = text.search(/[Tt]/);
  return t === 10 && isFullDate(text.slice(0, 10)) && TIME.test(text.slice(11));
}
