# frozen_string_literal: true

# patchconf command-protocol adapter (harness/PROTOCOL.md) for the Ruby gem `hana`
# (Debian's ruby-hana). An RFC 6902 library (`rfc` profile): each `json-patch` case is
# `Hana::Patch.new(patch).apply(original)`, the call its README shows. The protocol is the
# Ruby kit's (adapters/kit/ruby).
#
#   patchconf run --target "cmd:ruby adapters/ruby-hana/adapter.rb"

require_relative '../kit/ruby/patchconf_adapter'

# Only exception classes whose meaning is one patchconf class: Hana::Patch::IndexError
# (a non-numeric array index, and also a missing member in `remove`) and
# ObjectOperationOnArrayException stay `unclassified`, as does anything else raised
# (a KeyError for a missing `value`, a NoMethodError on a malformed operation...).
ERROR_CLASSES = {
  'Hana::Patch::FailedTestException' => 'test-failed',
  'Hana::Patch::MissingTargetException' => 'path-not-found',
  'Hana::Patch::OutOfBoundsException' => 'invalid-index',
  'Hana::Patch::InvalidPath' => 'invalid-patch',
  'Hana::Patch::Exception' => 'invalid-patch', # raised as itself only for an unknown op
  'Hana::Pointer::FormatError' => 'invalid-patch'
}.freeze

PatchconfAdapter.new(
  name: 'ruby-hana',
  homepage: 'https://github.com/tenderlove/hana',
  patch_types: ['json-patch'],
  profile: 'rfc',
  load: lambda {
    require 'hana'
    Hana::VERSION
  },
  error_class: ->(error) { ERROR_CLASSES.fetch(error.class.name, 'unclassified') }
) { |c| { 'document' => Hana::Patch.new(c['patch']).apply(c['original']) } }.main
