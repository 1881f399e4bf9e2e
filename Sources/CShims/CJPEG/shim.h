// libjpeg(-turbo) reports errors by calling `error_exit`, which must not return: libjpeg's own
// default exits the process. Swift cannot longjmp, so this wrapper sets the jump point and
// turns an error into a return value. It only drives libjpeg; the encoding is libjpeg's.
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

struct cardatlas_jpeg_error {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
};

static inline void cardatlas_jpeg_error_exit(j_common_ptr info) {
  longjmp(((struct cardatlas_jpeg_error *)info->err)->jump, 1);
}

/// Compresses 8-bit gray `pixels` (`width` × `height`, rows packed) at `quality` (1...100).
/// On success returns 1 and sets `*out` (to be freed with `free`) and `*size`; on failure
/// returns 0 with nothing to free.
static inline int cardatlas_jpeg_gray(const unsigned char *pixels, unsigned int width,
                                      unsigned int height, int quality, unsigned char **out,
                                      unsigned long *size) {
  struct jpeg_compress_struct info;
  struct cardatlas_jpeg_error error;
  // volatile: read after a longjmp back into this frame.
  unsigned char *volatile buffer = NULL;
  unsigned long buffer_size = 0;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = cardatlas_jpeg_error_exit;
  if (setjmp(error.jump)) {
    jpeg_destroy_compress(&info);
    free(buffer);
    return 0;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, (unsigned char **)&buffer, &buffer_size);
  info.image_width = width;
  info.image_height = height;
  info.input_components = 1;
  info.in_color_space = JCS_GRAYSCALE;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)info.next_scanline * width);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  *out = buffer;
  *size = buffer_size;
  return 1;
}
