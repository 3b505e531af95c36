"""Run by Blender (``blender -b --factory-startup -P blender_seen_check.py``) for
test_generator.py: does the generator's visibility ray see a die's face through as many
invisible walls as a scene can put in its way, and not through a wall a camera sees?"""

import sys
from pathlib import Path
from types import SimpleNamespace

import bpy
from mathutils import Vector

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "training"))
import blender_scene  # Blender's own Python finds it on the path set just above


def seen_through(walls: int, hidden_by_visible_box: bool) -> bool:
    """A unit die at the origin looked at from straight above through ``walls`` thin invisible
    boxes (each crossed twice), and, if asked, one box a camera sees."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    die = blender_scene.add_box("die", (1, 1, 1), (0, 0, 0), blender_scene.principled(
        "die", (1, 1, 1), 0.5))
    for k in range(walls):
        blender_scene.add_box(f"keep-{k}", (3, 3, 0.01), (0, 0, 1 + 0.1 * k),
                              blender_scene.principled(f"keep-{k}", (0, 0, 0), 1.0))
    if hidden_by_visible_box:
        blender_scene.add_box("hand", (3, 3, 0.01), (0, 0, 0.8), blender_scene.principled(
            "hand", (0.8, 0.6, 0.5), 0.5))
    depsgraph = bpy.context.evaluated_depsgraph_get()
    scene = SimpleNamespace(scene=bpy.context.scene)
    return blender_scene.Scene._seen(scene, depsgraph, Vector((0, 0, 10)), Vector((0, 0, 0.5)),
                                     die, 1.0)


print(f"seen through every invisible wall: "
      f"{seen_through(blender_scene.INVISIBLE_WALLS, hidden_by_visible_box=False)}")
print(f"seen behind a visible box: {seen_through(2, hidden_by_visible_box=True)}")
