/* Fuzz target: the reply channel's reader (programs/reply.c), as a parent reads what its child
 * wrote on the channel: the input is the bytes read. A success must hold what the reader promises:
 * the whole reply ended with "end", a status of the three, at most MFB_REPLY_FIELDS fields with
 * keys of no space and values within their buffers; a refusal is one line. */
#include "fuzz_common.h"
#include "programs/reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mfb_reply r;
    struct mfb_err err = {{0}};
    const char *text = (const char *)data;
    if (mfb_reply_parse(text, size, &r, &err) == 0) {
        FUZZ_CHECK(mfb_reply_complete(text, size));
        FUZZ_CHECK(r.status == MFB_REPLY_OK || r.status == MFB_REPLY_FAILED || r.status == MFB_REPLY_INTERRUPTED);
        FUZZ_CHECK(r.n >= 0 && r.n <= MFB_REPLY_FIELDS);
        FUZZ_CHECK(strlen(r.message) < sizeof r.message);
        for (int i = 0; i < r.n; i++) {
            FUZZ_CHECK(r.field[i].key[0] != '\0' && !strchr(r.field[i].key, ' '));
            FUZZ_CHECK(strlen(r.field[i].value) < sizeof r.field[i].value);
            FUZZ_CHECK(mfb_reply_get(&r, r.field[i].key) != NULL);
        }
    } else {
        FUZZ_CHECK(err.msg[0] != '\0' && !strchr(err.msg, '\n'));
    }
    return 0;
}
