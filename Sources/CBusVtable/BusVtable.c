#include "CBusVtable.h"

#include <stdlib.h>
#include <string.h>

/* Each entry's name and type string are copied: sd-bus keeps pointers into the table. */
sd_bus_vtable *usedspace_bus_vtable_new(const char *const *names, const char *types, const uint8_t *constant,
                                        size_t count, sd_bus_property_get_t getter) {
    sd_bus_vtable *vtable = calloc(count + 2, sizeof *vtable);
    if (!vtable) return NULL;
    vtable[0] = (sd_bus_vtable) SD_BUS_VTABLE_START(0);
    for (size_t i = 0; i < count; i++) {
        char *name = strdup(names[i]);
        char *type = malloc(2);
        if (!name || !type) {
            free(name);
            free(type);
            vtable[i + 1] = (sd_bus_vtable) SD_BUS_VTABLE_END;
            usedspace_bus_vtable_free(vtable);
            return NULL;
        }
        type[0] = types[i];
        type[1] = '\0';
        uint64_t flags = constant[i] ? SD_BUS_VTABLE_PROPERTY_CONST : SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE;
        vtable[i + 1] = (sd_bus_vtable) SD_BUS_PROPERTY(name, type, getter, 0, flags);
    }
    vtable[count + 1] = (sd_bus_vtable) SD_BUS_VTABLE_END;
    return vtable;
}

void usedspace_bus_vtable_free(sd_bus_vtable *vtable) {
    if (!vtable) return;
    for (sd_bus_vtable *entry = vtable + 1; entry->type != _SD_BUS_VTABLE_END; entry++) {
        free((void *) entry->x.property.member);
        free((void *) entry->x.property.signature);
    }
    free(vtable);
}
