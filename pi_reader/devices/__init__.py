"""The appliance's devices, each behind a small interface with a real and a fake implementation.

The fakes record what happened (texts spoken, screens shown, LED states, frames served) so tests
can assert on them, in the spirit of gpiozero's ``MockPin.states``.
"""
