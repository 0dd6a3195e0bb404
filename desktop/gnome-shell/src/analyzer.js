// "Open Disk Usage Analyzer": baobab on the filesystem's watched path, or the command the
// settings give (run by /bin/sh with USEDSPACE_PATH and USEDSPACE_MOUNTPOINT set, as the
// bars' click-right command is). The one process the extension ever starts.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';

export function openAnalyzer(command, filesystem) {
    const launcher = new Gio.SubprocessLauncher({flags: Gio.SubprocessFlags.NONE});
    launcher.set_cwd(GLib.get_home_dir());
    if (filesystem) {
        launcher.setenv('USEDSPACE_PATH', filesystem.path, true);
        launcher.setenv('USEDSPACE_MOUNTPOINT', filesystem.mountPoint, true);
    }
    const argv = command ? ['/bin/sh', '-c', command] : ['baobab'].concat(filesystem ? [filesystem.path] : []);
    try {
        const process = launcher.spawnv(argv);
        // Reaped when it ends; its exit is of no concern here.
        process.wait_async(null, (_process, result) => {
            try {
                _process.wait_finish(result);
            } catch (error) {
                logError(error, 'usedspace: the disk usage analyzer');
            }
        });
    } catch (error) {
        Main.notifyError('Cannot open the disk usage analyzer', error.message);
    }
}
