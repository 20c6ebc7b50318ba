/* pic.h: the legacy 8259 PICs, which we only switch off. */
#ifndef ARCH_PIC_H
#define ARCH_PIC_H
void pic_disable(void);
#endif
