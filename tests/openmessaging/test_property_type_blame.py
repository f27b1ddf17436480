"""A property type an implementation cannot put denies the Object variant that takes that shape
(the mapping entry's constraint), not the type's own definition: rocketmq-openmessaging held
type-system/binary on its Binary bodies and failed it on a Binary property it could not set (review 15)."""
from __future__ import annotations

from fixtures.openmessaging import checks
from fixtures.openmessaging.mapping import Constraint, NoNativeField, default_mapping

VARIANT = "openmessaging/type-system/object-variant"


def test_every_property_type_names_the_object_variant():
    assert {t: default_mapping().constraints[t].clause for t in default_mapping().property_types} == \
        dict.fromkeys(default_mapping().property_types, VARIANT)


def test_a_missing_property_type_blames_the_variant_only(om_vectors):
    vector = next(v for v in om_vectors.vectors if v.id == "openmessaging.type-system.binary-value")
    exc = NoNativeField("Binary over p: no native field (no Binary values)", name="Binary",
                        constraint=Constraint("REQUIRED", VARIANT))
    failed = checks.no_native_field(vector, om_vectors.registry, "over p", exc)
    assert list(failed.clauses) == [VARIANT]


def test_a_missing_header_still_blames_every_clause_its_checks_judge(om_vectors):
    vector = next(v for v in om_vectors.vectors if v.id == "openmessaging.system-header.store-host")
    exc = NoNativeField("storeHost over p: no native field", name="storeHost",
                        constraint=Constraint("REQUIRED", "openmessaging/system-header/store-host-required"))
    failed = checks.no_native_field(vector, om_vectors.registry, "over p", exc)
    assert len(failed.clauses) == 2


def test_a_requirement_of_separate_behaviours_seen_in_part_is_partial_never_absent():
    # Artemis over AMQP 1.0 counted a failed consumption (step 1) and not a delivery to a consumer that
    # died (step 0): its profile cell said "absent" against its own evidence (review 16).
    from fixtures.openmessaging import profile
    got = profile.from_observations("redelivery", {"count_step_after_crash": 0, "count_step_after_failure": 1}, "here")
    assert got["delivery-count"]["status"] == "partial", got
    none = profile.from_observations("redelivery", {"count_step_after_crash": 0, "count_step_after_failure": 0}, "here")
    assert none["delivery-count"]["status"] == "absent", none


def test_a_control_that_held_never_makes_a_requirement_partial():
    from fixtures.openmessaging import profile
    got = profile.from_observations("expiry", {"expired_delivered": True, "control_delivered": True}, "here")
    assert got["expiry"]["status"] == "absent", got
