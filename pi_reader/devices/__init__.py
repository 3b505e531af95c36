"""The appliance's devices, each behind a small interface with a real and a fake implementation.

The fakes record what happened (texts spoken, screens shown, LED states, frames served) so tests
can assert on them, in the spirit of gpiozero's ``MockPin.states``.

==========  ====================  ==========================================  ======================
device      interface             real                                        fakes / stand-ins
==========  ====================  ==========================================  ======================
camera      ``Camera``            ``PiCamera``, ``OpenCVCamera``,             ``FakeCamera``
                                  ``DirectoryCamera`` (``open_camera(spec)``)
speaker     ``Speaker``           ``EspeakSpeaker``                           ``FakeSpeaker``,
                                                                              ``PrintSpeaker``
display     ``Display``           ``LcdDisplay``                              ``FakeDisplay``,
                                                                              ``ConsoleDisplay``
LEDs        ``Leds``              ``LockLeds``                                ``FakeLeds``,
                                                                              ``ConsoleLeds``
buttons     ``ButtonPanel``       ``Buttons``                                 ``FakeButtons``
==========  ====================  ==========================================  ======================
"""

from pi_reader.camera_spec import CameraKind, CameraSpec, parse_camera_spec
from pi_reader.devices.bundle import Devices, DeviceWarning, build_devices
from pi_reader.devices.camera import Camera, ExposureControls, as_bgr_frame
from pi_reader.devices.camera_choice import open_camera
from pi_reader.devices.directory_camera import DirectoryCamera
from pi_reader.devices.display import (
    ConsoleDisplay,
    Display,
    FakeDisplay,
    LcdDisplay,
    fit_lines,
)
from pi_reader.devices.errors import (
    CameraError,
    CameraExhausted,
    CameraNotStarted,
    CameraSoftwareMissing,
    CameraSpecError,
    CameraUnavailable,
    DeviceClosed,
    DeviceError,
    DisplayUnavailable,
    GpioUnavailable,
    SpeakerUnavailable,
    UnknownButton,
    UnknownColour,
)
from pi_reader.devices.fake_camera import FakeCamera
from pi_reader.devices.gpio import (
    BUTTON_NAMES,
    LOCK_COLOURS,
    ButtonPanel,
    Buttons,
    ConsoleLeds,
    FakeButtons,
    FakeLeds,
    Leds,
    LockLeds,
)
from pi_reader.devices.opencv_camera import OpenCVCamera
from pi_reader.devices.picamera import PiCamera
from pi_reader.devices.settings import (
    CameraSettings,
    DeviceSettings,
    GpioSettings,
    LcdSettings,
    SpeakerSettings,
)
from pi_reader.devices.speaker import EspeakSpeaker, FakeSpeaker, PrintSpeaker, Speaker

__all__ = [
    "BUTTON_NAMES",
    "LOCK_COLOURS",
    "ButtonPanel",
    "Buttons",
    "Camera",
    "CameraError",
    "CameraExhausted",
    "CameraKind",
    "CameraNotStarted",
    "CameraSettings",
    "CameraSoftwareMissing",
    "CameraSpec",
    "CameraSpecError",
    "CameraUnavailable",
    "ConsoleDisplay",
    "ConsoleLeds",
    "DeviceClosed",
    "DeviceError",
    "DeviceSettings",
    "DeviceWarning",
    "Devices",
    "DirectoryCamera",
    "Display",
    "DisplayUnavailable",
    "EspeakSpeaker",
    "ExposureControls",
    "FakeButtons",
    "FakeCamera",
    "FakeDisplay",
    "FakeLeds",
    "FakeSpeaker",
    "GpioSettings",
    "GpioUnavailable",
    "LcdDisplay",
    "LcdSettings",
    "Leds",
    "LockLeds",
    "OpenCVCamera",
    "PiCamera",
    "PrintSpeaker",
    "Speaker",
    "SpeakerSettings",
    "SpeakerUnavailable",
    "UnknownButton",
    "UnknownColour",
    "as_bgr_frame",
    "build_devices",
    "fit_lines",
    "open_camera",
    "parse_camera_spec",
]
