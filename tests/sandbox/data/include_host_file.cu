// Hostile: puts a host file into the compiler's error text.
#include "/etc/passwd"
