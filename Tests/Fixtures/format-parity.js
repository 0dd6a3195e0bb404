// Runs desktop/common/format.js, the desktops' numbers, on the cases of a file, one a line,
// and prints one answer a line, for DesktopFormatParityTests (run with `gjs -m`):
//
//   size BYTES              fileSize            percent USED FREE    percentText
//   cells USED FREE CELLS   filledCells         bar USED FREE CELLS  barText
//   time LOWER UPPER        describeTimeToFull  fill RATE SECONDS    fastFillText
//
// Numbers are read as the desktops get them: a D-Bus `t` or `x` (GNOME) or a JSON number
// (Plasma) becomes the nearest double, as Number() makes of the decimal text.
import GLib from 'gi://GLib';
import System from 'system';
import * as Format from '../../desktop/common/format.js';

const calls = {
    size: ([bytes]) => Format.fileSize(bytes),
    percent: ([used, free]) => Format.percentText(used, free),
    cells: ([used, free, cells]) => String(Format.filledCells(used, free, cells)),
    bar: ([used, free, cells]) => Format.barText(used, free, cells),
    time: ([lower, upper]) => Format.describeTimeToFull(lower, upper),
    fill: ([rate, seconds]) => Format.fastFillText(rate, seconds),
};

const [, contents] = GLib.file_get_contents(System.programArgs[0]);
const answers = [];
for (const line of new TextDecoder().decode(contents).split('\n')) {
    if (line === '')
        continue;
    const [name, ...numbers] = line.split(' ');
    const call = calls[name];
    if (!call)
        throw new Error(`unknown case: ${line}`);
    answers.push(call(numbers.map(Number)));
}
print(answers.join('\n'));
