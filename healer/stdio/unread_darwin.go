package stdio

// fionread is the ioctl that tells how many bytes wait in a pipe:
// FIONREAD, _IOR('f', 127, int) in <sys/filio.h> (x/sys/unix does not
// name it for darwin).
const fionread = 0x4004667f
