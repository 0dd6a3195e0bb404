// What the daemon says of one watched filesystem, read from its D-Bus properties
// (docs/dbus.md) into the record of common/filesystems.js, and checked: a property that is
// missing or of another type, or a state the contract does not name, makes the record's
// `problem`, shown as an error, never a broken indicator. Pure: no Gio here, so that the
// checks are tested without a bus.

// io.github.usedspace.UsedSpace1.Filesystem: every property and its D-Bus type.
// OPTIONAL_TYPES: the ones a daemon older than this extension does not send (read as
// empty), checked when they come.
export const OPTIONAL_TYPES = {FastFillWriting: 's'};
export const PROPERTY_TYPES = {
    Path: 's', MountPoint: 's', Type: 's', Label: 's',
    UsedRate: 'd', UsedPercent: 'i',
    UsedBytes: 't', FreeBytes: 't', TotalBytes: 't', ReservedBytes: 't',
    ReadOnly: 'b', State: 's', Severity: 's', Error: 's',
    TimeToFull: 's', TimeToFullLowerSeconds: 'x', TimeToFullUpperSeconds: 'x',
    FastFillBytesPerSecond: 't', FastFillSecondsToFull: 'x',
    BtrfsUnallocatedBytes: 't', BtrfsMetadata: 's',
    QuotaKind: 's', QuotaUsedBytes: 't', QuotaLimitBytes: 't',
    Seq: 't', SampledAt: 'x',
};

const STATES = ['fresh', 'stale', 'failed'];
const SEVERITIES = ['normal', 'warning', 'critical'];
const BTRFS_METADATA = ['', 'ok', 'low', 'full'];
const QUOTA_KINDS = ['', 'btrfs-referenced', 'btrfs-exclusive', 'user', 'group', 'project'];

// `lookup(name)` gives [typeString, value] of a property, or null when it is missing.
// Returns a plain record; `problem` is null when everything checked out.
export function readFilesystem(objectPath, lookup) {
    const values = {};
    for (const [name, type] of Object.entries(PROPERTY_TYPES)) {
        const found = lookup(name);
        if (!found)
            return broken(objectPath, `the daemon sent no ${name}`);
        const [actual, value] = found;
        if (actual !== type)
            return broken(objectPath, `the daemon sent ${name} as '${actual}', not '${type}'`);
        values[name] = value;
    }
    for (const [name, type] of Object.entries(OPTIONAL_TYPES)) {
        const found = lookup(name);
        if (found && found[0] !== type)
            return broken(objectPath, `the daemon sent ${name} as '${found[0]}', not '${type}'`);
        values[name] = found ? found[1] : '';
    }
    if (!STATES.includes(values.State))
        return broken(objectPath, `the daemon sent an unknown State '${values.State}'`);
    if (!SEVERITIES.includes(values.Severity))
        return broken(objectPath, `the daemon sent an unknown Severity '${values.Severity}'`);
    if (!BTRFS_METADATA.includes(values.BtrfsMetadata))
        return broken(objectPath, `the daemon sent an unknown BtrfsMetadata '${values.BtrfsMetadata}'`);
    if (!QUOTA_KINDS.includes(values.QuotaKind))
        return broken(objectPath, `the daemon sent an unknown QuotaKind '${values.QuotaKind}'`);
    if (values.Path === '')
        return broken(objectPath, 'the daemon sent an empty Path');
    const hasNumbers = values.State !== 'failed' && values.UsedBytes + values.FreeBytes > 0;
    return {
        key: objectPath,
        problem: null,
        path: values.Path,
        mountPoint: values.MountPoint,
        fsType: values.Type,
        label: values.Label,
        state: values.State,
        severity: values.Severity,
        error: values.Error,
        hasNumbers,
        usedBytes: values.UsedBytes,
        freeBytes: values.FreeBytes,
        totalBytes: values.TotalBytes,
        readOnly: values.ReadOnly,
        timeToFull: values.TimeToFull,
        fastFill: values.FastFillBytesPerSecond > 0 && values.FastFillSecondsToFull >= 0
            ? {bytesPerSecond: values.FastFillBytesPerSecond, secondsToFull: values.FastFillSecondsToFull, writing: values.FastFillWriting}
            : null,
        btrfs: values.BtrfsMetadata === ''
            ? null
            : {unallocatedBytes: values.BtrfsUnallocatedBytes, metadata: values.BtrfsMetadata},
        quota: values.QuotaKind === ''
            ? null
            : {kind: values.QuotaKind, usedBytes: values.QuotaUsedBytes, limitBytes: values.QuotaLimitBytes},
        seq: values.Seq,
    };
}

function broken(objectPath, problem) {
    return {key: objectPath, problem, path: watchedPath(objectPath), severity: 'normal', state: 'failed', hasNumbers: false};
}

// The watched path an object's path names (systemd's bus path escaping: "_2fhome" is
// "/home"), to say which filesystem a malformed object is about.
export function watchedPath(objectPath) {
    const escaped = objectPath.slice(objectPath.lastIndexOf('/') + 1);
    try {
        return decodeURIComponent(escaped.replace(/_([0-9a-f]{2})/g, '%$1'));
    } catch (_error) {
        return escaped;
    }
}
