// Numbers as usedspace writes them everywhere (usedspace status --details, the bars): the
// same text in GNOME Shell and in Plasma as on the command line. Ported from UsedSpaceCore
// (ByteCountFormat, PercentText, ProgressBar, TimeToFull); DesktopFormatParityTests runs both
// on the same values.
// Pure functions, no imports: desktop/build.sh turns this module into each front-end's form.

// Decimal digits of a non-negative number, from its shortest round-trip form (as Swift's
// and JavaScript's number-to-text conversions both give it): [digits, exponent] with the
// value 0.d1d2d3… × 10^exponent.
function decimalDigits(value) {
    const [mantissa, exponentPart] = String(value).split('e');
    let exponent = Number(exponentPart || 0);
    const point = mantissa.indexOf('.');
    const digits = mantissa.replace('.', '').split('').map(Number);
    exponent += point < 0 ? digits.length : point;
    while (digits.length > 0 && digits[0] === 0) {
        digits.shift();
        exponent -= 1;
    }
    while (digits.length > 0 && digits[digits.length - 1] === 0)
        digits.pop();
    return [digits, digits.length === 0 ? 0 : exponent];
}

// Rounds half to even to `fractionDigits` decimals, as ICU (and so Foundation) does.
function roundedDigits(decimal, fractionDigits) {
    const digits = decimal[0];
    const exponent = decimal[1];
    const keep = exponent + fractionDigits;
    if (keep >= digits.length)
        return [digits, exponent];
    if (keep < 0)
        return [[], 0];
    const kept = digits.slice(0, keep);
    const rest = digits.slice(keep);
    const beyondHalf = rest[0] > 5 || (rest[0] === 5 && rest.slice(1).some(d => d !== 0));
    const exactlyHalf = rest[0] === 5 && !beyondHalf;
    let newExponent = exponent;
    const lastKeptIsOdd = kept.length > 0 && kept[kept.length - 1] % 2 === 1;
    if (beyondHalf || (exactlyHalf && lastKeptIsOdd)) {
        let index = kept.length - 1;
        while (index >= 0 && kept[index] === 9) {
            kept[index] = 0;
            index -= 1;
        }
        if (index >= 0) {
            kept[index] += 1;
        } else {
            kept.unshift(1);
            newExponent += 1;
        }
    }
    while (kept.length > 0 && kept[kept.length - 1] === 0)
        kept.pop();
    return [kept, kept.length === 0 ? 0 : newExponent];
}

// "1,000" or "12.35": groups of three with "," and a "." before the fraction, whatever the
// locale (as the command line writes them).
function groupedText(decimal) {
    const digits = decimal[0];
    const exponent = decimal[1];
    const whole = [];
    for (let position = 0; position < Math.max(exponent, 0); position++)
        whole.push(position < digits.length ? digits[position] : 0);
    if (whole.length === 0)
        whole.push(0);
    let fraction = exponent < 0 ? new Array(-exponent).fill(0) : [];
    fraction = fraction.concat(digits.slice(Math.max(exponent, 0)));
    let text = '';
    whole.forEach((digit, index) => {
        if (index > 0 && (whole.length - index) % 3 === 0)
            text += ',';
        text += digit;
    });
    return fraction.length > 0 ? `${text}.${fraction.join('')}` : text;
}

const UNITS = [['KB', 0], ['MB', 1], ['GB', 2], ['TB', 2], ['PB', 2], ['EB', 2]];

// Int64.max as a double (2^63): the largest count Foundation takes, and so the command line.
const LARGEST_COUNT = 9223372036854775807;

// A byte count as macOS's ByteCountFormatter writes file sizes (decimal units): "Zero KB",
// "1 byte", "999 bytes", "1.2 MB", "167.2 GB"; above Int64.max, as Int64.max ("9.22 EB").
export function fileSize(bytes) {
    bytes = Math.min(bytes, LARGEST_COUNT);
    if (bytes === 0)
        return 'Zero KB';
    if (bytes === 1)
        return '1 byte';
    if (bytes < 1000)
        return `${bytes} bytes`;
    let unitSize = 1000;
    let index = 0;
    while (index < UNITS.length - 1 && bytes >= unitSize * 1000) {
        unitSize *= 1000;
        index += 1;
    }
    const [name, fractionDigits] = UNITS[index];
    return `${groupedText(roundedDigits(decimalDigits(bytes / unitSize), fractionDigits))} ${name}`;
}

const TWO32 = 4294967296;

// No destructured parameters in this file: Qt 6's JavaScript engine (Plasma 6.3 and 6.7)
// reads them wrongly inside a loop (quotient([0, 10], [0, 4]) gave 1), where gjs and Qt 5
// read them right.

// Whole numbers beyond a double's 53 bits of exact sums and products, as [high, low] 32-bit
// halves: sizes reach the desktops as doubles (D-Bus `t`, JSON numbers), which hold a whole
// number's halves exactly, and the shares must be exact as the command line's are (a double
// division lands on the other side of a rounding half). Plasma's JavaScript has no BigInt.
function halves(value) {
    return [Math.floor(value / TWO32), value % TWO32];
}

function sum(a, b) {
    const low = a[1] + b[1];
    return [a[0] + b[0] + Math.floor(low / TWO32), low % TWO32];
}

// × a factor below 2^20.
function times(value, factor) {
    const product = value[1] * factor;
    return [value[0] * factor + Math.floor(product / TWO32), product % TWO32];
}

// floor(numerator / divisor), divisor > 0, the numerator's high half below 2^53: long
// division, one bit at a time, the remainder (below the divisor) held in halves too, so
// that every step is exact.
function quotient(numerator, divisor) {
    const numeratorHigh = numerator[0];
    const numeratorLow = numerator[1];
    const divisorHigh = divisor[0];
    const divisorLow = divisor[1];
    let result = 0;
    let remainderHigh = 0;
    let remainderLow = 0;
    for (let bit = 84; bit >= 0; bit--) {
        const digit = bit >= 32
            ? Math.floor(numeratorHigh / Math.pow(2, bit - 32)) % 2
            : Math.floor(numeratorLow / Math.pow(2, bit)) % 2;
        remainderLow = remainderLow * 2 + digit;
        remainderHigh = remainderHigh * 2 + Math.floor(remainderLow / TWO32);
        remainderLow %= TWO32;
        result *= 2;
        if (remainderHigh > divisorHigh || (remainderHigh === divisorHigh && remainderLow >= divisorLow)) {
            remainderHigh -= divisorHigh;
            remainderLow -= divisorLow;
            if (remainderLow < 0) {
                remainderLow += TWO32;
                remainderHigh -= 1;
            }
            result += 1;
        }
    }
    return result;
}

// used / (used + free) × 1000, rounded half up: what the percentage is drawn from; null
// without numbers.
function usedPermille(used, free) {
    if (!(used + free > 0))
        return null;
    const usable = sum(halves(used), halves(free));
    let permille = quotient(sum(times(halves(used), 2000), usable), times(usable, 2));
    // A filesystem that is not completely full never shows 100.0 %.
    if (permille === 1000 && free !== 0)
        permille = 999;
    return permille;
}

// "35.2": the used share in percent with one decimal, as the bars print it; "" without
// numbers.
export function percentText(usedBytes, freeBytes) {
    const permille = usedPermille(usedBytes, freeBytes);
    return permille === null ? '' : `${Math.floor(permille / 10)}.${permille % 10}`;
}

// How many of `cells` cells a bar fills: the floor of the used share, so that a bar is
// full only when the filesystem is.
export function filledCells(usedBytes, freeBytes, cells) {
    if (!(usedBytes + freeBytes > 0))
        return 0;
    const filled = quotient(times(halves(usedBytes), cells), sum(halves(usedBytes), halves(freeBytes)));
    return Math.min(filled, cells);
}

// "[███████░░░░░░░░░░░░░]", as usedspace status draws it.
export function barText(usedBytes, freeBytes, cells = 20) {
    const filled = filledCells(usedBytes, freeBytes, cells);
    return `[${'█'.repeat(filled)}${'░'.repeat(cells - filled)}]`;
}

const DURATION_UNITS = [
    ['minute', 60, 5400],
    ['hour', 3600, 36 * 3600],
    ['day', 86400, 14 * 86400],
    ['week', 7 * 86400, Infinity],
];

function durationUnit(seconds) {
    return DURATION_UNITS.find(([, , below]) => seconds < below);
}

function unitCount(unit, seconds) {
    const size = unit[1];
    return Math.floor(seconds / size) + (seconds % size >= Math.floor(size / 2) ? 1 : 0);
}

function unitName(unit, count) {
    return `${count} ${unit[0]}${count === 1 ? '' : 's'}`;
}

// "full in 3–5 days", "full in about 6 minutes": a range of seconds as the daemon words it.
export function describeTimeToFull(lowerSeconds, upperSeconds) {
    const low = Math.max(0, Math.min(lowerSeconds, upperSeconds));
    const high = Math.max(0, lowerSeconds, upperSeconds);
    if (high === 0)
        return 'full now';
    const unit = durationUnit(high);
    const highCount = unitCount(unit, high);
    if (highCount === 0)
        return 'full in less than a minute';
    const lowCount = unitCount(unit, low);
    if (lowCount === highCount)
        return `full in about ${unitName(unit, highCount)}`;
    if (lowCount > 0)
        return `full in ${lowCount}–${unitName(unit, highCount)}`;
    const lowUnit = durationUnit(low);
    const ownCount = unitCount(lowUnit, low);
    if (ownCount === 0)
        return `full in less than ${unitName(unit, highCount)}`;
    return `full in ${unitName(lowUnit, ownCount)} – ${unitName(unit, highCount)}`;
}

// "120 MB/s — full in about 6 minutes": a fast fill, as the details' "Filling:" line says it.
export function fastFillText(bytesPerSecond, secondsToFull) {
    return `${fileSize(bytesPerSecond)}/s — ${describeTimeToFull(secondsToFull, secondsToFull)}`;
}
