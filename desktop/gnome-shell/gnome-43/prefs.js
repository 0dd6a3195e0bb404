// The preferences, GNOME 43 and 44 (legacy importer); the page is prefsPage.js.
const ExtensionUtils = imports.misc.extensionUtils;
const {fillPreferencesWindow: fillPage} = ExtensionUtils.getCurrentExtension().imports.prefsPage;

function init() {
}

function fillPreferencesWindow(window) {
    fillPage(window, ExtensionUtils.getSettings());
}
