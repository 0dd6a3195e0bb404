// The style classes of a view's level and mode (stylesheet.css gives them their colours):
// one of each on the widget, the others taken off.
const LEVELS = ['normal', 'warning', 'critical'];
const MODES = ['fresh', 'stale', 'failed', 'error', 'no-daemon', 'empty'];

export function applyStyle(actor, view) {
    for (const level of LEVELS)
        actor.remove_style_class_name(`usedspace-${level}`);
    for (const mode of MODES)
        actor.remove_style_class_name(`usedspace-${mode}`);
    actor.add_style_class_name(`usedspace-${view.level}`);
    actor.add_style_class_name(`usedspace-${view.mode}`);
}
