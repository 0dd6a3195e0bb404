#!/usr/bin/python3
"""A notification server that does not read markup: GetCapabilities says "body" and
"actions", not "body-markup". It owns org.freedesktop.Notifications on the session bus and
writes each notification it is given to a file, one JSON object a line: {"summary", "body"}.
For the one case dunst (which reads markup) cannot show: the body must then come as it is,
unescaped. Every other notification test uses dunst."""
import json
import sys

from gi.repository import Gio, GLib

NAME = 'org.freedesktop.Notifications'
PATH = '/org/freedesktop/Notifications'
XML = '''<node><interface name="org.freedesktop.Notifications">
<method name="GetCapabilities"><arg type="as" direction="out"/></method>
<method name="Notify"><arg type="s"/><arg type="u"/><arg type="s"/><arg type="s"/><arg type="s"/>
<arg type="as"/><arg type="a{sv}"/><arg type="i"/><arg type="u" direction="out"/></method>
<method name="CloseNotification"><arg type="u"/></method>
<method name="GetServerInformation"><arg type="s" direction="out"/><arg type="s" direction="out"/>
<arg type="s" direction="out"/><arg type="s" direction="out"/></method>
</interface></node>'''

shown = open(sys.argv[1], 'a')
next_id = 0


def on_call(connection, sender, path, interface, method, parameters, invocation):
    global next_id
    if method == 'GetCapabilities':
        invocation.return_value(GLib.Variant('(as)', (['body', 'actions'],)))
    elif method == 'Notify':
        next_id += 1
        shown.write(json.dumps({'summary': parameters[3], 'body': parameters[4]}) + '\n')
        shown.flush()
        invocation.return_value(GLib.Variant('(u)', (next_id,)))
    elif method == 'CloseNotification':
        invocation.return_value(None)
    else:
        invocation.return_value(GLib.Variant('(ssss)', ('plain', 'usedspace tests', '1', '1.2')))


def main():
    connection = Gio.bus_get_sync(Gio.BusType.SESSION)
    node = Gio.DBusNodeInfo.new_for_xml(XML)
    connection.register_object(PATH, node.interfaces[0], on_call, None, None)
    Gio.bus_own_name_on_connection(connection, NAME, Gio.BusNameOwnerFlags.NONE, None, None)
    GLib.MainLoop().run()


main()
