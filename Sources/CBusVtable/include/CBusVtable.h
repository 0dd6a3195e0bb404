#pragma once
#include <stdint.h>
#include <systemd/sd-bus.h>

/* sd-bus takes an interface as a table built with C macros (SD_BUS_PROPERTY…), which Swift
 * cannot expand: this builds one at run time from a list of read-only properties, each
 * answered by the same getter. */

/* Builds the table of `count` properties, `names[i]` of D-Bus type `types[i]` (one type
 * code each), constant (never changing) where `constant[i]` is nonzero, else announced by
 * PropertiesChanged. Returns NULL when out of memory. Free it with usedspace_bus_vtable_free
 * once no slot uses it. */
sd_bus_vtable *usedspace_bus_vtable_new(const char *const *names, const char *types, const uint8_t *constant,
                                        size_t count, sd_bus_property_get_t getter);

void usedspace_bus_vtable_free(sd_bus_vtable *vtable);
