// Hostile: embeds a host file into the built library.
asm(".section .rodata\n.globl stolen\nstolen:\n.incbin \"/etc/passwd\"\n.previous\n");
extern "C" int answer() { return 42; }
