// The widget's progress bar: the used share filled in the colour the stylesheet gives the
// indicator's level (its foreground colour), the rest in that colour, faint. Redrawn only
// when the fill or the style changes.
import GObject from 'gi://GObject';
import St from 'gi://St';
import Clutter from 'gi://Clutter';

export const UsageBar = GObject.registerClass(
class UsageBar extends St.DrawingArea {
    _init(styleClass) {
        super._init({style_class: styleClass, y_align: Clutter.ActorAlign.CENTER});
        this._fill = 0;
    }

    setFill(fill) {
        if (fill !== this._fill) {
            this._fill = fill;
            this.queue_repaint();
        }
    }

    vfunc_repaint() {
        const cr = this.get_context();
        const [width, height] = this.get_surface_size();
        const color = this.get_theme_node().get_foreground_color();
        const [red, green, blue] = [color.red / 255, color.green / 255, color.blue / 255];
        cr.setSourceRGBA(red, green, blue, 0.3);
        cr.rectangle(0, 0, width, height);
        cr.fill();
        cr.setSourceRGBA(red, green, blue, 1);
        cr.rectangle(0, 0, Math.round(width * this._fill), height);
        cr.fill();
        cr.$dispose();
    }

    vfunc_style_changed() {
        super.vfunc_style_changed();
        this.queue_repaint();
    }
});
