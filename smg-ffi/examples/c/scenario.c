/* The ABI scenario in C: ingest a LoCoMo file, open it, search, build a context,
 * expand a segment, validate a broken file, and open an encrypted file with the
 * wrong passphrase; then make a delta between two memories, rebuild the second from
 * the first, and see another base refused; last, store the search index in the first
 * and search it again. Run under valgrind by scripts/test.sh.
 *
 * usage: scenario LOCOMO.json WORKDIR ENCRYPTED.smg OTHER_LOCOMO.json */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smg.h"

static int failures = 0;
static int checks = 0;

static uint32_t u32_at(const uint8_t *b, size_t at) {
    return (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 | (uint32_t)b[at + 2] << 16 | (uint32_t)b[at + 3] << 24;
}

static void check(int ok, const char *what);

/* The same search as one buffer (the layout smg.h gives): the first turn's content. */
static void search_hits(const smg_memory *mem) {
    uint8_t *bytes = NULL;
    size_t len = 0;
    check(smg_memory_search_hits(mem, "When did Caroline go to the LGBTQ support group?", 5, 0, &bytes, &len) ==
              SMG_STATUS_OK,
          "search as one buffer");
    if (bytes == NULL || len < 24 || memcmp(bytes, "SMGH", 4) != 0) {
        check(0, "the buffer starts with SMGH");
        smg_bytes_free(bytes, len);
        return;
    }
    uint32_t turns = u32_at(bytes, 8), nodes = u32_at(bytes, 12), warnings = u32_at(bytes, 16);
    uint32_t size = u32_at(bytes, 20);
    check(u32_at(bytes, 4) == 1 && turns == 5 && size >= 128, "five turns in layout 1");
    size_t strings = 24 + (size_t)(turns + nodes) * size + (size_t)warnings * 8;
    int inside = strings <= len, found = 0;
    for (uint32_t i = 0; i < turns && inside; i++) {
        size_t text = 24 + (size_t)i * size + 32 + 5 * 8; /* the record's text slot */
        size_t offset = u32_at(bytes, text), n = u32_at(bytes, text + 4);
        inside = offset <= len - strings && n <= len - strings - offset;
        for (size_t at = 0; inside && at + 13 <= n && !found; at++) {
            found = memcmp(bytes + strings + offset + at, "support group", 13) == 0;
        }
    }
    check(inside, "every turn's content lies in the buffer");
    check(found, "a turn speaks of the support group");
    smg_bytes_free(bytes, len);
    check(smg_memory_search_hits(mem, "q", 5, 0, NULL, &len) == SMG_STATUS_NULL_ARGUMENT, "no output, no search");
    bytes = NULL;
    check(smg_memory_search_hits(mem, "support group", 5, SMG_SEARCH_EXACT, &bytes, &len) == SMG_STATUS_OK,
          "an exact search");
    smg_bytes_free(bytes, len);
    check(smg_memory_search_hits(mem, "q", 5, 1u << 7, &bytes, &len) == SMG_STATUS_INVALID_ARGUMENT,
          "an unknown flag is refused");
    /* Kept to a span of time: a year the memory has no turn of finds nothing. */
    bytes = NULL;
    check(smg_memory_search_within(mem, "support group", 5, 0, "2023-05-01", "2023-12-31", &bytes, &len) ==
                  SMG_STATUS_OK &&
              len >= 24 && u32_at(bytes, 8) == 5,
          "a search within 2023");
    smg_bytes_free(bytes, len);
    bytes = NULL;
    check(smg_memory_search_within(mem, "support group", 5, 0, "2031-01-01", NULL, &bytes, &len) == SMG_STATUS_OK &&
              len >= 24 && u32_at(bytes, 8) == 0,
          "nothing since 2031");
    smg_bytes_free(bytes, len);
    check(smg_memory_search_within(mem, "q", 5, 0, "yesterday", NULL, &bytes, &len) == SMG_STATUS_INVALID_ARGUMENT,
          "a time that is none is refused");
    char *json = NULL;
    check(smg_memory_context_within(mem, "support group", 300, NULL, "2023-01-01", &json) == SMG_STATUS_OK &&
              json != NULL && strstr(json, "\"items\":[]") != NULL,
          "no context before 2023");
    smg_string_free(json);
}

static void check(int ok, const char *what) {
    checks++;
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    if (!ok) failures++;
}

static void print_error(void) {
    char buf[256];
    size_t n = 0;
    smg_last_error(buf, sizeof buf, &n);
    printf("  last error (%zu bytes): %s\n", n, buf);
}

/* Whether two files hold the same bytes. */
static int same_bytes(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa != NULL && fb != NULL;
    while (same) {
        int x = fgetc(fa), y = fgetc(fb);
        if (x != y) same = 0;
        if (x == EOF || y == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s LOCOMO.json WORKDIR ENCRYPTED.smg OTHER_LOCOMO.json\n", argv[0]);
        return 2;
    }
    char out_path[4096];
    snprintf(out_path, sizeof out_path, "%s/scenario.smg", argv[2]);
    check(strcmp(smg_version(), SMG_VERSION) == 0, "the library is the header's version");

    const char *inputs[] = {argv[1]};
    char *summary = NULL;
    check(smg_ingest(inputs, 1, out_path, &summary) == SMG_STATUS_OK, "ingest a LoCoMo file");
    check(summary != NULL && strstr(summary, "\"turnsAdded\"") != NULL, "ingest summary");
    smg_string_free(summary);

    smg_memory *mem = NULL;
    check(smg_memory_open(out_path, NULL, 0, &mem) == SMG_STATUS_OK && mem != NULL, "open");

    char *json = NULL;
    check(smg_memory_search(mem, "When did Caroline go to the LGBTQ support group?", 5, &json) == SMG_STATUS_OK,
          "search");
    check(json != NULL && strstr(json, "support group") != NULL, "search finds the support group");
    char segment[64] = {0};
    const char *at = json ? strstr(json, "\"segment\":\"") : NULL;
    if (at) {
        at += strlen("\"segment\":\"");
        size_t n = strcspn(at, "\"");
        if (n < sizeof segment) memcpy(segment, at, n);
    }
    smg_string_free(json);
    search_hits(mem);

    json = NULL;
    check(smg_memory_context(mem, "Caroline support group", 300, &json) == SMG_STATUS_OK, "context");
    check(json != NULL && strstr(json, "\"tokens\"") != NULL, "context pack");
    smg_string_free(json);

    check(smg_memory_set_tokenizer(mem, "gpt-2") == SMG_STATUS_INVALID_ARGUMENT,
          "an unknown tokenizer is refused");
    check(smg_memory_set_model(mem, "no such folder") == SMG_STATUS_MODEL, "a missing model is SMG-E232");
    check(smg_memory_set_tokenizer(mem, "cl100k") == SMG_STATUS_OK, "count tokens with cl100k");
    json = NULL;
    check(smg_memory_context(mem, "Caroline support group", 300, &json) == SMG_STATUS_OK, "context, cl100k");
    check(json != NULL && strstr(json, "\"tokens\"") != NULL, "context pack counted by cl100k");
    smg_string_free(json);

    char *text = NULL;
    check(segment[0] != 0 && smg_memory_expand(mem, segment, &text) == SMG_STATUS_OK, "expand the hit's segment");
    check(text != NULL && strstr(text, "Caroline: ") != NULL, "expanded turns");
    smg_string_free(text);
    text = NULL;
    check(smg_memory_expand(mem, "seg-999999", &text) == SMG_STATUS_UNKNOWN_NODE && text == NULL,
          "an unknown segment is SMG-E201 and writes nothing");
    print_error();
    smg_memory_free(mem);
    smg_memory_free(NULL);

    const char broken[] = "this is not a memory file";
    char *report = NULL;
    check(smg_validate((const uint8_t *)broken, sizeof broken - 1, &report) == SMG_STATUS_INVALID,
          "a broken file is invalid");
    check(report != NULL && strstr(report, "SMG-E003") != NULL, "the report names SMG-E003");
    smg_string_free(report);

    smg_memory *locked = NULL;
    const char wrong[] = "not the passphrase";
    check(smg_memory_open(argv[3], (const uint8_t *)wrong, sizeof wrong - 1, &locked) ==
              SMG_STATUS_WRONG_PASSPHRASE && locked == NULL,
          "a wrong passphrase is SMG-E141 and opens nothing");
    print_error();
    check(smg_memory_open(NULL, NULL, 0, &locked) == SMG_STATUS_NULL_ARGUMENT, "a null path is refused");

    char both_path[4096], delta_path[4096], rebuilt_path[4096], stray_path[4096];
    snprintf(both_path, sizeof both_path, "%s/both.smg", argv[2]);
    snprintf(delta_path, sizeof delta_path, "%s/both.smgd", argv[2]);
    snprintf(rebuilt_path, sizeof rebuilt_path, "%s/both-rebuilt.smg", argv[2]);
    snprintf(stray_path, sizeof stray_path, "%s/stray.smg", argv[2]);
    const char *both[] = {argv[1], argv[4]};
    summary = NULL;
    check(smg_ingest(both, 2, both_path, &summary) == SMG_STATUS_OK, "ingest two LoCoMo files");
    smg_string_free(summary);
    char *header = NULL;
    check(smg_delta_make(out_path, both_path, NULL, 0, delta_path, &header) == SMG_STATUS_OK,
          "make a delta");
    check(header != NULL && strstr(header, "\"patch\":\"document\"") != NULL, "a document patch");
    smg_string_free(header);
    check(smg_delta_apply(out_path, delta_path, NULL, 0, rebuilt_path) == SMG_STATUS_OK, "apply it");
    check(same_bytes(both_path, rebuilt_path), "the rebuilt file is byte for byte the target");
    check(smg_delta_apply(both_path, delta_path, NULL, 0, stray_path) == SMG_STATUS_DELTA_BASE,
          "another base is SMG-E160");
    print_error();
    FILE *stray = fopen(stray_path, "rb");
    check(stray == NULL, "and nothing is written");
    if (stray) fclose(stray);

    summary = NULL;
    check(smg_index(out_path, &summary) == SMG_STATUS_OK, "store the search index");
    check(summary != NULL && strstr(summary, "\"bytesAfter\"") != NULL, "index summary");
    smg_string_free(summary);
    mem = NULL;
    check(smg_memory_open(out_path, NULL, 0, &mem) == SMG_STATUS_OK, "open it by the index");
    json = NULL;
    check(smg_memory_search(mem, "When did Caroline go to the LGBTQ support group?", 5, &json) == SMG_STATUS_OK &&
              json != NULL && strstr(json, "support group") != NULL,
          "and it still finds the support group");
    smg_string_free(json);
    smg_memory_free(mem);
    summary = NULL;
    check(smg_index(NULL, &summary) == SMG_STATUS_NULL_ARGUMENT && summary == NULL, "a null path is refused");

    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures == 0 ? 0 : 1;
}
