/* devices.h: device nodes made at boot (init/devices.c). */
#ifndef INIT_DEVICES_H
#define INIT_DEVICES_H

/* /dev/vda, ... for the disks the drivers found; after the initramfs. */
void devices_populate(void);

#endif
