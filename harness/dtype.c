/* Key types: names, sizes and classes. */
#include <string.h>

#include "primbench.h"

static const struct {
    const char *name;
    size_t size;
    bool is_float, is_signed;
} dtype_info[PB_DTYPE_COUNT] = {
    [PB_U8] = {"u8", 1, false, false},   [PB_U16] = {"u16", 2, false, false},
    [PB_U32] = {"u32", 4, false, false}, [PB_U64] = {"u64", 8, false, false},
    [PB_I8] = {"i8", 1, false, true},    [PB_I16] = {"i16", 2, false, true},
    [PB_I32] = {"i32", 4, false, true},  [PB_I64] = {"i64", 8, false, true},
    [PB_F32] = {"f32", 4, true, true},   [PB_F64] = {"f64", 8, true, true},
};

const char *pb_dtype_name(enum pb_dtype t) { return dtype_info[t].name; }
size_t pb_dtype_size(enum pb_dtype t) { return dtype_info[t].size; }
bool pb_dtype_is_float(enum pb_dtype t) { return dtype_info[t].is_float; }
bool pb_dtype_is_signed(enum pb_dtype t) { return dtype_info[t].is_signed; }

int pb_dtype_parse(const char *name, enum pb_dtype *out) {
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        if (strcmp(name, dtype_info[t].name) == 0) {
            *out = (enum pb_dtype)t;
            return 0;
        }
    }
    return -1;
}
