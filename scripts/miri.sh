#!/usr/bin/env bash
# Miri (the interpreter that detects undefined behaviour) over the tests it can run:
# smg-format's that call no C (zstd, ring's assembly) and finish in minutes when
# interpreted, and the C ABI's own tests, whose unsafe blocks are the ones that matter.
# Not part of test.sh: interpreted code runs thousands of times slower.
#   bash scripts/miri.sh            # every test listed below; exit 1 on undefined behaviour
set -uo pipefail
cd "$(dirname "$0")/.."
rustup toolchain list | grep -q nightly || rustup toolchain install nightly --profile minimal
rustup component add miri rust-src --toolchain nightly >/dev/null
cargo +nightly miri setup >/dev/null
# Tests read fixtures and the temporary-file sweep reads /proc. Tree Borrows: rayon's
# crossbeam-epoch breaks the older, experimental Stacked Borrows rules (a retag in
# `Local::element_of`, known upstream), which would stop every test that runs in
# parallel before it reaches our code; its integer-to-pointer casts are allowed. Leaks
# are not checked: rayon's global pool keeps its threads until the process ends.
export MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks"

format_tests=(
  archive::code::tests::finds_bodies_exactly
  archive::code::tests::names_from_comments_and_titles
  archive::key_points::tests::packed_words_order_as_words_and_unpack_to_lower_case
  archive::key_points::tests::stopwords_are_sorted_and_key_points_skip_them
  canonical::tests::integers_keep_every_digit
  canonical::tests::keys_sort_by_utf16_code_units
  canonical::tests::rfc_8785_section_3_2_example
  canonical::tests::objects_are_put_in_key_order_in_place_and_the_last_duplicate_wins
  canonical::splice::tests::only_an_object_takes_entries
  codec::tests::versions
  codec::tests::wrong_types_name_the_pointer
  codec::tests::keeps_unknown_fields_at_every_level
  codec::tests::canonical_output_sorts_keys_and_is_stable
  counts::tests::each_count_is_refused_one_past_what_the_file_has
  vault::tests::rebuilds_a_delta_chain
  vault::tests::a_delta_that_does_not_apply_names_artifact_and_version
  file::temp::tests::a_dead_writers_temp_file_goes_and_nothing_else
  file::lock::tests::a_new_file_is_created_under_the_lock
  lineage::tests::bad_branch_names_and_times_are_refused
  archive::tests::gzip_and_stored_blocks_decode
  archive::tests::corrupt_blocks_name_the_block
  archive::tests::block_round_trip_is_byte_exact
  vault::tests::reopening_a_vault_keeps_dedup_and_names
  merge::tests::one_sided_and_identical_changes_merge_cleanly
  merge::tests::a_turn_changed_differently_on_both_sides_is_a_conflict
  merge::derived::tests::references_follow_the_numbering
  sign::tests::sign_verify_and_name_what_changed
  packed::json::tests::parses_only_the_entry_asked_for
  envelope::tests::header_is_byte_exact
  envelope::tests::reads_a_bare_zstd_frame
  crypto::tests::hostile_headers_are_refused_before_any_work
  validate::schema::tests::bundled_schema_compiles
  diff::tests::artifact_versions_added
  diff::tests::nodes_edges_turns_and_fields
)
ffi_tests=(
  tests::statuses_are_the_error_codes
  tests::version_matches_cargo
  tests::null_arguments_are_refused
  tests::the_last_error_is_cut_to_the_buffer_and_terminated
  tests::a_handle_opens_answers_and_frees
  tests::validates_through_the_abi
)

log=$(mktemp)
failed=0
run() {
  local crate="$1"; shift
  for t in "$@"; do
    local start=$SECONDS result
    timeout 600 cargo +nightly miri test -q -p "$crate" --lib -- --exact "$t" >"$log" 2>&1
    local code=$?
    if [ "$code" = 0 ]; then
      result=ok
    elif [ "$code" = 124 ]; then
      result="not finished in 10 minutes"
    elif grep -q "Undefined Behavior" "$log"; then
      result="UNDEFINED BEHAVIOUR"; failed=1; cat "$log"
    elif grep -q "unsupported operation" "$log"; then
      result="not runnable ($(grep -m1 -o 'unsupported operation: [^`]*' "$log"))"
    else
      result=FAILED; failed=1; tail -20 "$log"
    fi
    echo "$crate $t: $result ($((SECONDS - start)) s)"
  done
}
run smg-ffi "${ffi_tests[@]}"
run smg-format "${format_tests[@]}"
rm -f "$log"
exit "$failed"
