// libqrencode: QR code symbols (the matrix of modules) from text.
#include <qrencode.h>
