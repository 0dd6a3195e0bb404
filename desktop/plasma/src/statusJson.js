// The widget's one source of data: `usedspace status --all --format json`, as a long poll.
// With `--after SEQS` (the seq of each line of the previous answer) the client answers at
// once when anything differs, else when the daemon next publishes: on an idle disk the
// command simply waits, and costs nothing. Its answer is read here into the records of
// common/filesystems.js and checked: output that is not the client's JSON is a `problem`,
// shown as an error, never a broken widget.

const STATES = ['fresh', 'stale', 'failed'];
const SEVERITIES = ['normal', 'warning', 'critical'];

// The shell command the executable data engine runs (through /bin/sh: exec leaves one
// process). `serial` makes each command's text new (a comment): the engine runs a source
// only when it does not have it already.
export function command(seqs, serial) {
    const after = seqs.length > 0 ? ` --after ${seqs.join(',')}` : '';
    return `exec usedspace status --all --format json${after} #${serial}`;
}

// {problem, daemon ('running', 'absent' or 'missing'), filesystems, seqs}: `problem` is null
// when the output made sense.
export function readAnswer(exitCode, stdout, stderr) {
    const lines = String(stdout || '').split('\n').filter(line => line.trim() !== '');
    if (lines.length === 0 && exitCode !== 0) {
        // The shell found no usedspace on the widget's PATH (a widget from the store alone):
        // the client comes with the daemon, and the views say what to install.
        if (exitCode === 127)
            return {problem: null, daemon: 'missing', filesystems: [], seqs: []};
        const said = String(stderr || '').split('\n').filter(line => line.trim() !== '')[0];
        return failure(said || `usedspace exited with status ${exitCode}`);
    }
    const filesystems = [];
    let direct = false;
    for (const line of lines) {
        let object;
        try {
            object = JSON.parse(line);
        } catch (_error) {
            return failure(`usedspace printed something that is not its JSON: ${line.slice(0, 80)}`);
        }
        const record = readLine(object);
        if (typeof record === 'string')
            return failure(`usedspace printed JSON without ${record}: ${line.slice(0, 80)}`);
        direct = direct || object.source === 'direct';
        filesystems.push(record);
    }
    return {
        problem: null,
        daemon: direct ? 'absent' : 'running',
        filesystems,
        seqs: filesystems.map(fs => fs.seq),
    };
}

function failure(problem) {
    return {problem, daemon: 'error', filesystems: [], seqs: []};
}

function isCount(value) {
    return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

// A record, or the name of what the line lacks.
function readLine(object) {
    if (object === null || typeof object !== 'object' || Array.isArray(object))
        return 'an object';
    for (const key of ['path', 'label']) {
        if (typeof object[key] !== 'string')
            return `a "${key}" text`;
    }
    // null: a mount the mount table does not show (a bare chroot), or a failure before
    // the mount was known.
    for (const key of ['mountpoint', 'fstype']) {
        if (typeof object[key] !== 'string' && object[key] !== null)
            return `a "${key}" text`;
    }
    if (!STATES.includes(object.state))
        return 'a known "state"';
    if (!SEVERITIES.includes(object.severity))
        return 'a known "severity"';
    if (object.source !== 'daemon' && object.source !== 'direct')
        return 'a known "source"';
    if (!isCount(object.seq))
        return 'a "seq" count';
    const numbers = ['used_bytes', 'free_bytes', 'total_bytes'].every(key => isCount(object[key]));
    if (!numbers && object.state !== 'failed')
        return 'its sizes';
    const fill = object.fast_fill;
    const fastFill = fill && isCount(fill.bytes_per_second) && typeof fill.seconds_to_full === 'number'
        ? {bytesPerSecond: fill.bytes_per_second, secondsToFull: fill.seconds_to_full, writing: typeof fill.writing === 'string' ? fill.writing : ''}
        : null;
    const btrfs = object.btrfs && isCount(object.btrfs.unallocated_bytes)
        ? {unallocatedBytes: object.btrfs.unallocated_bytes, metadata: String(object.btrfs.metadata_state || '')} : null;
    return {
        key: object.path,
        problem: null,
        path: object.path,
        mountPoint: object.mountpoint === null ? '' : object.mountpoint,
        fsType: object.fstype === null ? '' : object.fstype,
        label: object.label,
        state: object.state,
        severity: object.severity,
        error: typeof object.error === 'string' ? object.error : '',
        hasNumbers: numbers && object.state !== 'failed' && object.used_bytes + object.free_bytes > 0,
        usedBytes: numbers ? object.used_bytes : 0,
        freeBytes: numbers ? object.free_bytes : 0,
        totalBytes: numbers ? object.total_bytes : 0,
        readOnly: object.read_only === true,
        timeToFull: object.time_to_full && typeof object.time_to_full.text === 'string' ? object.time_to_full.text : '',
        fastFill,
        btrfs,
        quota: object.quota && typeof object.quota.kind === 'string' && isCount(object.quota.used_bytes) && isCount(object.quota.limit_bytes)
            ? {kind: object.quota.kind, usedBytes: object.quota.used_bytes, limitBytes: object.quota.limit_bytes} : null,
        seq: object.seq,
    };
}

// `text` in single quotes for /bin/sh.
export function shellQuoted(text) {
    return `'${String(text).replace(/'/g, "'\\''")}'`;
}

// The shell command that opens the disk usage analyzer on `filesystem` (or none), detached
// from the widget: `analyzer` (run by /bin/sh with USEDSPACE_PATH and USEDSPACE_MOUNTPOINT
// set, as the bars' click-right command), or baobab on the watched path.
export function analyzerCommand(analyzer, filesystem, serial) {
    const environment = filesystem
        ? `USEDSPACE_PATH=${shellQuoted(filesystem.path)} USEDSPACE_MOUNTPOINT=${shellQuoted(filesystem.mountPoint)} `
        : '';
    const run = analyzer ? analyzer : 'exec baobab ${USEDSPACE_PATH:+"$USEDSPACE_PATH"}';
    return `${environment}/bin/sh -c ${shellQuoted(run)} </dev/null >/dev/null 2>&1 & #${serial}`;
}
