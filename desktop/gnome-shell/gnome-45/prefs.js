// The preferences, GNOME 45 and later (ES modules); the page is prefsPage.js.
import {ExtensionPreferences} from 'resource:///org/gnome/Shell/Extensions/js/extensions/prefs.js';
import {fillPreferencesWindow as fillPage} from './prefsPage.js';

export default class UsedSpacePreferences extends ExtensionPreferences {
    fillPreferencesWindow(window) {
        fillPage(window, this.getSettings());
    }
}
