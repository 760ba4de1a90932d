"""What kubectl prints: ``get`` and ``get -w`` (:mod:`.get`), ``rollout status/history``
(:mod:`.rollout`) and ``describe``'s pod template (:mod:`.describe`), byte for byte."""
