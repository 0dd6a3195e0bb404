#!/usr/bin/python3
"""A stand-in for usedspaced on the session bus, for what the real daemon never sends: a
malformed reply. It owns io.github.usedspace.UsedSpace1 and serves the ObjectManager of
docs/dbus.md with the objects and properties of a JSON file, each property given with its
type, so that a test can send a property of the wrong type, leave one out, or name an
unknown state:

  {"/io/github/usedspace/UsedSpace1/filesystem/_2fhome": {"Path": ["s", "/home"], ...}}

On SIGUSR1 it reads the file again and announces the difference as the daemon would
(InterfacesAdded, InterfacesRemoved, PropertiesChanged). The front-ends' normal paths are
tested with the real daemon, never with this."""
import json
import signal
import sys

from gi.repository import Gio, GLib

NAME = 'io.github.usedspace.UsedSpace1'
ROOT = '/io/github/usedspace/UsedSpace1'
INTERFACE = 'io.github.usedspace.UsedSpace1.Filesystem'
MANAGER_XML = '''<node><interface name="org.freedesktop.DBus.ObjectManager">
<method name="GetManagedObjects"><arg type="a{oa{sa{sv}}}" direction="out"/></method>
<signal name="InterfacesAdded"><arg type="o"/><arg type="a{sa{sv}}"/></signal>
<signal name="InterfacesRemoved"><arg type="o"/><arg type="as"/></signal>
</interface></node>'''

spec_path = sys.argv[1]
objects = {}


def load():
    with open(spec_path) as spec:
        return {path: {name: GLib.Variant(kind, value) for name, (kind, value) in props.items()}
                for path, props in json.load(spec).items()}


def managed():
    return GLib.Variant('(a{oa{sa{sv}}})', ({path: {INTERFACE: props} for path, props in objects.items()},))


def on_call(connection, sender, path, interface, method, parameters, invocation):
    invocation.return_value(managed())


def emit(connection, path, interface, name, value):
    connection.emit_signal(None, path, interface, name, value)


def reload(connection):
    try:
        announce(connection)
    except Exception as error:  # a callback that raises would be removed, and the next SIGUSR1 kill us
        print(f'fake-usedspace-bus: {error}', file=sys.stderr, flush=True)
    return GLib.SOURCE_CONTINUE


def announce(connection):
    global objects
    new = load()
    for path in objects.keys() - new.keys():
        emit(connection, ROOT, 'org.freedesktop.DBus.ObjectManager', 'InterfacesRemoved',
             GLib.Variant('(oas)', (path, [INTERFACE])))
    for path, props in new.items():
        if path not in objects:
            emit(connection, ROOT, 'org.freedesktop.DBus.ObjectManager', 'InterfacesAdded',
                 GLib.Variant('(oa{sa{sv}})', (path, {INTERFACE: props})))
            continue
        changed = {name: value for name, value in props.items() if objects[path].get(name) != value}
        if changed:
            emit(connection, path, 'org.freedesktop.DBus.Properties', 'PropertiesChanged',
                 GLib.Variant('(sa{sv}as)', (INTERFACE, changed, [])))
    objects = new


def main():
    global objects
    objects = load()
    connection = Gio.bus_get_sync(Gio.BusType.SESSION)
    node = Gio.DBusNodeInfo.new_for_xml(MANAGER_XML)
    connection.register_object(ROOT, node.interfaces[0], on_call, None, None)
    Gio.bus_own_name_on_connection(connection, NAME, Gio.BusNameOwnerFlags.NONE, None, None)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, reload, connection)
    GLib.MainLoop().run()


main()
