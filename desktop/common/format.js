// Numbers as usedspace writes them everywhere (usedspace status --details, the bars): the
// same text in GNOME Shell and in Plasma as on the command line. Ported from UsedSpaceCore
// (ByteCountFormat, PercentText, ProgressBar, TimeToFull); a parity test runs both.
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
function roundedDigits([digits, exponent], fractionDigits) {
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
function groupedText([digits, exponent]) {
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

// A byte count as macOS's ByteCountFormatter writes file sizes (decimal units): "Zero KB",
// "1 byte", "999 bytes", "1.2 MB", "167.2 GB".
export function fileSize(bytes) {
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

// floor((a × k + c) / d) exactly, for whole numbers a, c < 2^53, k < 2^11, 0 < d < 2^52,
// where a × k does not fit a double's 53 bits: long division, one bit at a time, of a × k + c
// held in two 32-bit halves (the remainder stays below d, so every step is exact). Plasma's
// JavaScript has no BigInt.
function mulAddDivFloor(a, k, c, d) {
    let low = (a % TWO32) * k + (c % TWO32);
    const high = Math.floor(a / TWO32) * k + Math.floor(c / TWO32) + Math.floor(low / TWO32);
    low %= TWO32;
    let quotient = 0;
    let remainder = 0;
    for (let bit = 63; bit >= 0; bit--) {
        const word = bit >= 32 ? high : low;
        remainder = remainder * 2 + Math.floor(word / Math.pow(2, bit % 32)) % 2;
        quotient *= 2;
        if (remainder >= d) {
            remainder -= d;
            quotient += 1;
        }
    }
    return quotient;
}

// Whether exact arithmetic can take these sizes (below 2 PiB; beyond, a double's rounding).
function exact(usable) {
    return usable < Math.pow(2, 50);
}

// used / (used + free) × 1000, rounded half up: what the percentage is drawn from; null
// without numbers.
function usedPermille(used, free) {
    const usable = used + free;
    if (!(usable > 0))
        return null;
    let permille = exact(usable)
        ? mulAddDivFloor(used, 2000, usable, 2 * usable)
        : Math.floor(used / usable * 1000 + 0.5);
    // A filesystem that is not completely full never shows 100.0 %.
    if (permille === 1000 && used !== usable)
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
    const usable = usedBytes + freeBytes;
    if (!(usable > 0))
        return 0;
    const filled = exact(usable) ? mulAddDivFloor(usedBytes, cells, 0, usable) : Math.floor(usedBytes / usable * cells);
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

function unitCount([, size], seconds) {
    return Math.floor(seconds / size) + (seconds % size >= Math.floor(size / 2) ? 1 : 0);
}

function unitName([word], count) {
    return `${count} ${word}${count === 1 ? '' : 's'}`;
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
