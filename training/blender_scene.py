"""Build and render domain-randomised dice scenes inside Blender (run by ``render_scenes.py``).

Run only through Blender, which brings ``bpy`` (no numpy, no OpenCV: the finishing step that
turns these renders into camera-like frames runs in the project's own Python):

    blender -b --factory-startup -P training/blender_scene.py -- SPEC.json

``SPEC.json`` is written by ``render_scenes.py`` and names the output folder, the frame size,
the sample count and the scenes to render: ``{"out": DIR, "width": W, "height": H,
"samples": S, "scenes": [{"id": "a00012", "seed": 12, "kind": "appliance"}, ...]}``.

For every scene the script draws a whole setting from the scene's seed (surface, tray, dice
design, lights, camera, distractors), then renders its frames: an ``appliance`` scene is what
the product sees (a calibration frame with the six Qwixx dice lying apart, then rolls thrown by
the rigid-body simulation into the same tray under the same camera and lamp); a ``generic``
scene is any dice on any table seen from any reasonable camera. Each frame is written as a
16-bit PNG rendered two stops under (so the finishing step can choose the exposure like a
camera's auto exposure, with the headroom a real sensor clips) and a JSON file with what is
known about every die: its value, its box, its top face's corners and pips in pixels, whether
each pip and each of the face's nine places a pip may be is hidden from the camera, how far it
leans, whether it touches another die.

Why physics: dice dropped by Bullet settle as real dice do (against each other, against a wall,
cocked on a pencil), which placing them by hand never shows.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

import bpy
from bpy_extras.object_utils import world_to_camera_view
from mathutils import Matrix, Vector
from mathutils.geometry import convex_hull_2d

sys.path.insert(0, str(Path(__file__).resolve().parent))  # Blender runs this as a script
from pip_layouts import PIP_CELLS, PLACES

# Which face of the unit die shows which value: opposite faces add up to 7. Each entry is the
# face's outward normal and the two in-face axes the pip grid is laid along.
FACES = {
    1: ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    6: ((0, 0, -1), (1, 0, 0), (0, -1, 0)),
    2: ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    5: ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
    3: ((0, 1, 0), (-1, 0, 0), (0, 0, 1)),
    4: ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
}
# Body colours (linear RGB) of the Qwixx dice in the shades different editions print, and the
# other colours generic dice come in. Pips: dark on white and yellow, white on the others.
QWIXX_SHADES = {
    "white": [(0.85, 0.85, 0.83), (0.80, 0.78, 0.70), (0.90, 0.90, 0.92), (0.75, 0.75, 0.75)],
    "red": [(0.60, 0.03, 0.03), (0.75, 0.08, 0.04), (0.45, 0.02, 0.04), (0.80, 0.15, 0.10)],
    "yellow": [(0.85, 0.65, 0.02), (0.90, 0.80, 0.10), (0.80, 0.55, 0.01), (0.95, 0.85, 0.30)],
    "green": [(0.02, 0.30, 0.06), (0.10, 0.50, 0.08), (0.01, 0.18, 0.05), (0.20, 0.55, 0.20)],
    "blue": [(0.02, 0.08, 0.45), (0.05, 0.20, 0.65), (0.01, 0.03, 0.25), (0.15, 0.35, 0.75)],
}
QWIXX_DICE = ("white", "white", "red", "yellow", "green", "blue")
OTHER_BODIES = [
    (0.02, 0.02, 0.02), (0.25, 0.04, 0.45), (0.85, 0.30, 0.02), (0.85, 0.35, 0.50),
    (0.35, 0.35, 0.35), (0.80, 0.72, 0.55), (0.02, 0.25, 0.30), (0.40, 0.20, 0.08),
    (0.55, 0.80, 0.90), (0.95, 0.95, 0.95), (0.60, 0.80, 0.20),
]
DARK_PIPS = [(0.01, 0.01, 0.01), (0.02, 0.02, 0.08), (0.25, 0.01, 0.01), (0.03, 0.05, 0.25)]
# Bullet settles centimetre-sized bodies badly (they jitter for seconds): the scene is built in
# decimetres, U units to the metre; the camera sees the same picture at any scale.
U = 10.0
LIGHT_PIPS = [(0.85, 0.85, 0.85), (0.90, 0.88, 0.75), (0.75, 0.60, 0.15)]
# The share of throws in which one die starts cocked against another, and how far its top face
# leans then (a lean over 8 degrees makes a die unreadable, see training/cocked.py):
# dropped dice settle flat, and the reader must learn to refuse the cocked ones a table shows.
# A cube leaning on another's side pushes it with about (cos - sin) / (2 sin) of its weight at a
# lean of its top face: 0.37 at 30 degrees, 0.21 at 35, 0.12 at 40. Bullet multiplies the two
# bodies' frictions (0.5 for the floor), so the pair is given a felt's grip and a lean it can
# hold: at 30-42 degrees 4 of 36 throws ended cocked, at 35-44 degrees 7 of 36
# (training/measure_throws.py; 2 of 36 without leaning throws).
LEANING_THROWS = 0.4
LEAN_DEG = (35.0, 44.0)
LEAN_FRICTION = 1.0
# The share of throws that end in a huddle: the dice dropped into an invisible pen a few dice
# wide, so they settle pressed against each other, as dice pushed together or rolled from a
# cup often lie. Dropped freely, only 4.3 % of the dice of version 3 ended against another
# (544 of dr2train's 12577), and the calibrated validation rolls read such dice right 73 % of
# the time against 95 % for the others (dr2val). A huddle throw starts no die leaning: the
# pen presses some dice onto others' sides on its own.
HUDDLE_THROWS = 0.3
# The pen's floor area per die, in die footprints: from packed (most dice touch, some end on
# another's side) to loose (most touch one neighbour).
HUDDLE_AREA_PER_DIE = (1.8, 3.0)
PEN_SIDES = 8  # an octagon: dice settle against its walls at any yaw, not squared to a box
# The walls no camera sees: the four keepers round the dice area and the huddle's pen. A ray
# crosses each such box at most twice (in and out), so it meets what it looks for within
# 2 * INVISIBLE_WALLS + 1 hits.
INVISIBLE_WALLS = 4 + PEN_SIDES
# Two dice touch when this share of a side or less lies between them (the simulation leaves
# resting dice a collision margin apart; rounded edges keep corners off the outline).
TOUCH_GAP = 0.04
CUBE_CORNERS = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]


def kelvin_rgb(kelvin: float) -> tuple[float, float, float]:
    """Linear RGB of a black body (Tanner Helland's fit, normalised to the brightest channel)."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    srgb = [min(255.0, max(0.0, c)) / 255.0 for c in (r, g, b)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb]
    top = max(lin)
    return (lin[0] / top, lin[1] / top, lin[2] / top)


# --- materials -----------------------------------------------------------------------------

def principled(name: str, colour, roughness: float, specular: float = 0.5,
               clearcoat: float = 0.0, metallic: float = 0.0):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Specular"].default_value = specular
    bsdf.inputs["Clearcoat"].default_value = clearcoat
    bsdf.inputs["Metallic"].default_value = metallic
    return mat


def jitter(rng: random.Random, colour, amount: float):
    return tuple(min(1.0, max(0.0, c * (1.0 + rng.uniform(-amount, amount)))) for c in colour)


def textured(name: str, rng: random.Random, kind: str):
    """A procedural surface: felt, cloth, wood, print, mat or paper (a score pad)."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    coord = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Rotation"].default_value = (0, 0, rng.uniform(0, math.pi))
    links.new(coord.outputs["Object"], mapping.inputs["Vector"])
    ramp = nodes.new("ShaderNodeValToRGB")
    base = [rng.uniform(0.0, 0.6) for _ in range(3)]
    other = [min(1.0, c * rng.uniform(0.3, 1.8) + rng.uniform(-0.1, 0.2)) for c in base]
    if kind == "felt":
        tex = nodes.new("ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = rng.uniform(200, 900)
        tex.inputs["Detail"].default_value = 8
        other = [c * rng.uniform(0.8, 1.1) for c in base]
        roughness, sheen = 1.0, rng.uniform(0.3, 1.0)
    elif kind == "cloth":
        tex = nodes.new("ShaderNodeTexWave")
        tex.inputs["Scale"].default_value = rng.uniform(20, 300)
        tex.inputs["Distortion"].default_value = rng.uniform(0, 3)
        roughness, sheen = 0.9, rng.uniform(0.2, 0.8)
    elif kind == "wood":
        tex = nodes.new("ShaderNodeTexWave")
        tex.wave_profile = "SAW"
        tex.inputs["Scale"].default_value = rng.uniform(2, 12)
        tex.inputs["Distortion"].default_value = rng.uniform(4, 12)
        tex.inputs["Detail"].default_value = 6
        shade = rng.uniform(0.15, 0.6)
        base = [shade, shade * 0.55, shade * 0.3]
        other = [c * rng.uniform(0.5, 0.8) for c in base]
        roughness, sheen = rng.uniform(0.25, 0.7), 0.0
    elif kind == "print":
        tex = nodes.new(rng.choice(["ShaderNodeTexVoronoi", "ShaderNodeTexChecker",
                                    "ShaderNodeTexMagic", "ShaderNodeTexBrick"]))
        tex.inputs["Scale"].default_value = rng.uniform(3, 40)
        other = [rng.uniform(0, 1) for _ in range(3)]
        roughness, sheen = rng.uniform(0.3, 0.8), 0.0
    elif kind == "paper":
        tex = nodes.new("ShaderNodeTexBrick")
        tex.inputs["Scale"].default_value = rng.uniform(8, 20)
        tex.inputs["Mortar Size"].default_value = 0.03
        white = rng.uniform(0.7, 0.9)
        base = [white, white, white * rng.uniform(0.85, 1.0)]
        other = list(rng.choice(list(QWIXX_SHADES.values()))[0])
        roughness, sheen = 0.9, 0.0
    else:  # mat: plain with a faint mottle
        tex = nodes.new("ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = rng.uniform(20, 200)
        other = [c * rng.uniform(0.85, 1.15) for c in base]
        roughness, sheen = rng.uniform(0.4, 0.95), 0.0
    links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
    ramp.color_ramp.elements[0].color = (*base, 1.0)
    ramp.color_ramp.elements[1].color = (*[min(1.0, max(0.0, c)) for c in other], 1.0)
    out = tex.outputs["Fac"] if "Fac" in tex.outputs else tex.outputs[0]
    links.new(out, ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Sheen"].default_value = sheen
    bsdf.inputs["Specular"].default_value = 0.3
    return mat


# --- objects -------------------------------------------------------------------------------

def die_mesh(name: str, rng: random.Random, style: dict):
    """A unit die (side 1) with rounded edges and its pips, drilled or painted on."""
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    cube = bpy.context.active_object
    cube.name = name
    bevel = cube.modifiers.new("round", "BEVEL")
    bevel.width = style["rounding"]
    bevel.segments = 3
    cube.data.materials.append(bpy.data.materials.new(name + "-body"))
    cube.data.materials.append(bpy.data.materials.new(name + "-pips"))
    cutters = []
    for value, (normal, u_axis, v_axis) in FACES.items():
        for cu, cv in PIP_CELLS[value]:
            centre = (Vector(normal) * 0.5 + Vector(u_axis) * cu * style["pip_offset"]
                      + Vector(v_axis) * cv * style["pip_offset"])
            r = style["pip_radius"]
            if style["drilled"]:
                bpy.ops.mesh.primitive_uv_sphere_add(segments=16, ring_count=8, radius=r,
                                                     location=centre + Vector(normal) * r * 0.45)
            else:
                bpy.ops.mesh.primitive_cylinder_add(vertices=20, radius=r, depth=0.004,
                                                    location=centre + Vector(normal) * 0.0005)
                cyl = bpy.context.active_object
                cyl.rotation_euler = Vector(normal).to_track_quat("Z", "Y").to_euler()
            cutter = bpy.context.active_object
            cutter.data.materials.append(cube.data.materials[1])
            cutters.append(cutter)
    bpy.ops.object.select_all(action="DESELECT")
    for cutter in cutters:
        cutter.select_set(True)
    bpy.context.view_layer.objects.active = cutters[0]
    bpy.ops.object.join()
    pips = bpy.context.active_object
    pips.hide_render = True
    pips.hide_viewport = True
    if style["drilled"]:
        boolean = cube.modifiers.new("drill", "BOOLEAN")
        boolean.operation = "DIFFERENCE"
        boolean.solver = "EXACT"
        boolean.object = pips
        boolean.material_mode = "TRANSFER"
    else:
        boolean = cube.modifiers.new("paint", "BOOLEAN")
        boolean.operation = "UNION"
        boolean.solver = "EXACT"
        boolean.object = pips
        boolean.material_mode = "TRANSFER"
    depsgraph = bpy.context.evaluated_depsgraph_get()
    mesh = bpy.data.meshes.new_from_object(cube.evaluated_get(depsgraph))
    for poly in mesh.polygons:
        poly.use_smooth = True
    mesh.use_auto_smooth = True
    mesh.auto_smooth_angle = math.radians(35)
    bpy.data.objects.remove(cube)
    bpy.data.objects.remove(pips)
    return mesh


def add_die(mesh, name: str, size: float, body, pips, finish: float, rng: random.Random,
            body_kind: str = "solid"):
    """One die of ``mesh``: ``body_kind`` solid, marbled (two colours swirled) or translucent."""
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.scale = (size, size, size)
    gloss = finish  # 0 matte .. 1 glossy
    body_mat = principled(name + "-body", body, roughness=0.55 - 0.45 * gloss,
                          specular=0.4 + 0.3 * gloss, clearcoat=gloss * rng.uniform(0.3, 1.0))
    bsdf = body_mat.node_tree.nodes["Principled BSDF"]
    if body_kind == "translucent":
        bsdf.inputs["Transmission"].default_value = rng.uniform(0.5, 0.9)
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.05, 0.3)
    elif body_kind == "marbled":
        nodes, links = body_mat.node_tree.nodes, body_mat.node_tree.links
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = rng.uniform(2, 8)
        noise.inputs["Distortion"].default_value = rng.uniform(2, 8)
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = (*body, 1.0)
        swirl = rng.choice(OTHER_BODIES)
        ramp.color_ramp.elements[1].color = (*swirl, 1.0)
        links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    pip_mat = principled(name + "-pip", pips, roughness=rng.uniform(0.3, 0.8))
    for slot, mat in zip(obj.material_slots, (body_mat, pip_mat), strict=True):
        slot.link = "OBJECT"
        slot.material = mat
    return obj


def add_box(name: str, size, location, material, rotation=(0, 0, 0)):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location, rotation=rotation)
    obj = bpy.context.active_object
    obj.name = name
    obj.scale = size
    obj.data.materials.append(material)
    return obj


def make_rigid(obj, kind: str, shape: str = "BOX", mass: float = 0.005,
               friction: float = 0.5, bounce: float = 0.3) -> None:
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.rigidbody.object_add(type=kind)
    obj.rigid_body.collision_shape = shape
    obj.rigid_body.mass = mass
    obj.rigid_body.friction = friction
    obj.rigid_body.restitution = bounce
    obj.rigid_body.collision_margin = 0.0002 * U
    obj.rigid_body.linear_damping = 0.2
    obj.rigid_body.angular_damping = 0.3


# --- the scene -----------------------------------------------------------------------------

class Scene:
    """One randomised setting and everything placed in it; frames are rendered from it."""

    def __init__(self, spec: dict, width: int, height: int, samples: int) -> None:
        self.id = spec["id"]
        self.kind = spec["kind"]
        self.rng = random.Random(spec["seed"])
        self.width, self.height = width, height
        self.conditions: dict = {"kind": self.kind, "seed": spec["seed"]}
        # A set may lean a die in more throws than the version's share (render_scenes.py
        # --leaning-throws): cocked faces for the classifier to learn from.
        self.leaning_throws = float(spec.get("leaning_throws", LEANING_THROWS))
        bpy.ops.wm.read_factory_settings(use_empty=True)
        scene = bpy.context.scene
        scene.render.engine = "CYCLES"
        scene.cycles.device = "CPU"
        scene.cycles.samples = samples
        scene.cycles.use_adaptive_sampling = True
        # Debian's Blender has no OpenImageDenoise: the path tracer's grain stays, and the
        # finishing step's sensor noise and JPEG cover it as a camera's would.
        scene.cycles.use_denoising = False
        scene.cycles.max_bounces = 4
        scene.cycles.diffuse_bounces = 2
        scene.cycles.glossy_bounces = 2
        scene.cycles.transmission_bounces = 2
        scene.cycles.transparent_max_bounces = 2
        scene.cycles.adaptive_threshold = 0.03
        scene.cycles.caustics_reflective = False
        scene.cycles.caustics_refractive = False
        scene.render.resolution_x, scene.render.resolution_y = width, height
        scene.render.resolution_percentage = 100
        scene.render.use_persistent_data = True
        scene.render.image_settings.file_format = "PNG"
        scene.render.image_settings.color_depth = "16"
        scene.render.image_settings.color_mode = "RGB"
        scene.view_settings.view_transform = "Standard"
        scene.view_settings.look = "None"
        scene.view_settings.exposure = -2.0  # headroom: the finishing step exposes
        bpy.ops.rigidbody.world_add()
        scene.rigidbody_world.point_cache.frame_end = 200
        scene.rigidbody_world.substeps_per_frame = 20
        scene.rigidbody_world.solver_iterations = 30
        scene.frame_end = 200
        self.scene = scene
        self._surface()
        self._dice()
        self._distractors()
        self._lights()
        self._camera()

    # Setting ----------------------------------------------------------------------------
    def _surface(self) -> None:
        rng = self.rng
        kinds = ["felt", "cloth", "wood", "print", "mat"]
        weights = [4, 2, 2, 1, 2] if self.kind == "appliance" else [2, 2, 3, 2, 2]
        floor_kind = rng.choices(kinds, weights)[0]
        table_kind = rng.choice(kinds)
        self.tray = rng.random() < (0.75 if self.kind == "appliance" else 0.25)
        self.area = (U * rng.uniform(0.16, 0.30), U * rng.uniform(0.12, 0.24))  # where dice may lie
        table = add_box("table", (3.0 * U, 3.0 * U, 0.02 * U), (0, 0, -0.01 * U),
                        textured("table", rng, table_kind if self.tray else floor_kind))
        make_rigid(table, "PASSIVE")
        self.conditions.update(surface=floor_kind if not self.tray else f"tray/{floor_kind}",
                               table=table_kind if self.tray else floor_kind)
        self.walls: list = []
        self.pen: list = []  # the huddle's invisible walls, made at the first huddle
        if self.tray:
            half_x, half_y = self.area[0] / 2 + 0.01 * U, self.area[1] / 2 + 0.01 * U
            floor = add_box("tray-floor", (2 * half_x, 2 * half_y, 0.004 * U), (0, 0, 0.002 * U),
                            textured("tray-floor", rng, floor_kind))
            make_rigid(floor, "PASSIVE")
            wall_height = U * rng.uniform(0.015, 0.05)
            wall_mat = textured("wall", rng, rng.choice(["wood", "mat", "felt"]))
            t = 0.01 * U
            for name, size, loc in (
                ("wall-n", (2 * half_x + 2 * t, t, wall_height),
                 (0, half_y + t / 2, wall_height / 2)),
                ("wall-s", (2 * half_x + 2 * t, t, wall_height),
                 (0, -half_y - t / 2, wall_height / 2)),
                ("wall-e", (t, 2 * half_y, wall_height), (half_x + t / 2, 0, wall_height / 2)),
                ("wall-w", (t, 2 * half_y, wall_height), (-half_x - t / 2, 0, wall_height / 2)),
            ):
                wall = add_box(name, size, loc, wall_mat)
                make_rigid(wall, "PASSIVE")
                self.walls.append(wall)
            self.floor_z = 0.004 * U
        else:
            self.floor_z = 0.0
        # Invisible walls round the dice area keep thrown dice in view (a tray's own walls may
        # be too low to stop a bouncing die; on a bare table a hand's throw stays near).
        half_x, half_y = self.area[0] / 2 + 0.011 * U, self.area[1] / 2 + 0.011 * U
        for name, size, loc in (
            ("keep-n", (2 * half_x + 0.02 * U, 0.01 * U, U), (0, half_y + 0.005 * U, U / 2)),
            ("keep-s", (2 * half_x + 0.02 * U, 0.01 * U, U), (0, -half_y - 0.005 * U, U / 2)),
            ("keep-e", (0.01 * U, 2 * half_y, U), (half_x + 0.005 * U, 0, U / 2)),
            ("keep-w", (0.01 * U, 2 * half_y, U), (-half_x - 0.005 * U, 0, U / 2)),
        ):
            keeper = add_box(name, size, loc, principled(name, (0, 0, 0), 1.0))
            keeper.hide_render = True
            make_rigid(keeper, "PASSIVE")
        self.paper = None
        if rng.random() < 0.2:
            w, h = U * rng.uniform(0.08, 0.15), U * rng.uniform(0.06, 0.1)
            x = rng.uniform(-self.area[0] / 2, self.area[0] / 2)
            y = rng.uniform(-self.area[1] / 2, self.area[1] / 2)
            self.paper = add_box("paper", (w, h, 0.0004 * U), (x, y, self.floor_z + 0.0002 * U),
                                 textured("paper", rng, "paper"),
                                 rotation=(0, 0, rng.uniform(0, math.pi)))
            self.conditions["paper"] = True
        world = bpy.data.worlds.new("world")
        self.scene.world = world
        world.use_nodes = True
        ambient = rng.uniform(0.02, 0.4)
        tint = kelvin_rgb(rng.uniform(3000, 8000))
        world.node_tree.nodes["Background"].inputs["Color"].default_value = (*tint, 1.0)
        world.node_tree.nodes["Background"].inputs["Strength"].default_value = ambient

    def _dice(self) -> None:
        rng = self.rng
        size = U * rng.uniform(0.012, 0.020)
        style = {
            "rounding": rng.uniform(0.05, 0.2),
            "drilled": rng.random() < 0.6,
            "pip_radius": rng.uniform(0.065, 0.105),
        }
        # Pips stay inside the flat part of the face, which the rounding eats into.
        flat = 0.5 - style["rounding"] * 0.6
        style["pip_offset"] = min(rng.uniform(0.24, 0.31), flat - style["pip_radius"] - 0.01)
        finish = rng.random() ** 1.5
        self.conditions.update(die_mm=round(size / U * 1000, 1), drilled=style["drilled"],
                               rounding=round(style["rounding"], 3),
                               pip_radius=round(style["pip_radius"], 3), finish=round(finish, 2))
        self.style = style
        mesh = die_mesh("die", rng, style)
        self.dice: list[dict] = []
        if self.kind == "appliance":
            flipped = rng.random() < 0.1
            for index, name in enumerate(QWIXX_DICE):
                body = jitter(rng, rng.choice(QWIXX_SHADES[name]), 0.1)
                light_pips = name not in ("white", "yellow")
                if flipped and name in ("red", "green", "blue") and rng.random() < 0.5:
                    light_pips = False
                pips = rng.choice(LIGHT_PIPS if light_pips else DARK_PIPS)
                obj = add_die(mesh, f"die{index}", size, body, pips, finish, rng)
                self.dice.append({"obj": obj, "colour": name, "size": size,
                                  "flipped": light_pips != (name not in ("white", "yellow"))})
        else:
            count = rng.choice([1, 2, 3, 4, 5, 6, 6, 6, 7, 8, 10, 12, 16, 20])
            for index in range(count):
                if rng.random() < 0.4:
                    name = rng.choice(QWIXX_DICE)
                    body = jitter(rng, rng.choice(QWIXX_SHADES[name]), 0.1)
                else:
                    name = None
                    body = jitter(rng, rng.choice(OTHER_BODIES), 0.15)
                light_body = sum(body) / 3 > 0.35
                pips = rng.choice(DARK_PIPS if light_body else LIGHT_PIPS)
                if rng.random() < 0.1:
                    pips = rng.choice(DARK_PIPS + LIGHT_PIPS)
                body_kind = rng.choices(["solid", "marbled", "translucent"], [8, 1, 1])[0]
                obj = add_die(mesh, f"die{index}", size, body, pips, finish, rng, body_kind)
                self.dice.append({"obj": obj, "colour": name, "size": size, "flipped": False})
        for die in self.dice:
            die["friction"] = rng.uniform(0.3, 0.7)
            make_rigid(die["obj"], "ACTIVE", mass=0.004, friction=die["friction"],
                       bounce=rng.uniform(0.2, 0.5))

    def _distractors(self) -> None:
        rng = self.rng
        self.distractors = []
        for index in range(rng.choice([0, 0, 1, 1, 2, 3])):
            kind = rng.choice(["coin", "pencil", "screw"])
            if kind == "coin":
                bpy.ops.mesh.primitive_cylinder_add(vertices=48,
                                                    radius=U * rng.uniform(0.008, 0.013),
                                                    depth=0.0018 * U)
                mat = principled("coin", rng.choice([(0.9, 0.7, 0.3), (0.8, 0.8, 0.8),
                                                     (0.7, 0.4, 0.25)]), 0.3, metallic=1.0)
                shape = "CYLINDER"
            elif kind == "pencil":
                bpy.ops.mesh.primitive_cylinder_add(vertices=6, radius=0.0038 * U,
                                                    depth=U * rng.uniform(0.08, 0.17))
                paint = rng.choice([*OTHER_BODIES, (0.9, 0.6, 0.02)])
                mat = principled("pencil", jitter(rng, paint,
                                                  0.1), 0.4)
                shape = "CONVEX_HULL"
            else:
                bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.0025 * U,
                                                    depth=U * rng.uniform(0.012, 0.03))
                mat = principled("screw", (0.7, 0.7, 0.72), 0.35, metallic=1.0)
                shape = "CYLINDER"
            obj = bpy.context.active_object
            obj.name = f"{kind}{index}"
            obj.data.materials.append(mat)
            if kind != "coin":
                obj.rotation_euler = (math.pi / 2, 0, rng.uniform(0, math.pi))
            make_rigid(obj, "ACTIVE", shape=shape, mass=0.01)
            self.distractors.append(obj)
        self.hand = None
        if rng.random() < 0.15:
            bpy.ops.mesh.primitive_uv_sphere_add(radius=1.0)
            hand = bpy.context.active_object
            hand.scale = (0.09 * U, 0.045 * U, 0.03 * U)
            hand.data.materials.append(principled("skin", jitter(rng, (0.8, 0.5, 0.38), 0.3), 0.5))
            for poly in hand.data.polygons:
                poly.use_smooth = True
            self.hand = hand
            self.conditions["hand"] = True

    def _lights(self) -> None:
        rng = self.rng
        lights = []
        for index in range(rng.choice([1, 1, 2, 2, 3])):
            kelvin = rng.uniform(2700, 6500)
            soft = rng.random() < 0.6
            data = bpy.data.lights.new(f"light{index}", "AREA" if soft else "POINT")
            if soft:
                data.size = U * rng.uniform(0.05, 0.8)
            else:
                data.shadow_soft_size = U * rng.uniform(0.0, 0.03)
            distance = U * rng.uniform(0.3, 1.4)
            data.energy = rng.uniform(15, 60) * distance ** 2 * (1.0 if index == 0 else 0.5)
            data.color = kelvin_rgb(kelvin)
            light = bpy.data.objects.new(f"light{index}", data)
            self.scene.collection.objects.link(light)
            azimuth = rng.uniform(0, 2 * math.pi)
            elevation = math.radians(rng.uniform(35, 90))
            light.location = (distance * math.cos(elevation) * math.cos(azimuth),
                              distance * math.cos(elevation) * math.sin(azimuth),
                              distance * math.sin(elevation))
            light.rotation_euler = (-light.location).to_track_quat("-Z", "Y").to_euler()
            lights.append({"kelvin": round(kelvin), "soft": soft,
                           "distance_m": round(distance / U, 2),
                           "rgb": [round(c, 4) for c in data.color],
                           "irradiance": round(data.energy / distance ** 2, 2)})
        self.conditions["lights"] = lights

    def _camera(self) -> None:
        rng = self.rng
        data = bpy.data.cameras.new("camera")
        data.sensor_fit = "HORIZONTAL"
        data.sensor_width = 36.0
        camera = bpy.data.objects.new("camera", data)
        self.scene.collection.objects.link(camera)
        self.scene.camera = camera
        if self.kind == "appliance":
            height = U * rng.uniform(0.25, 0.60)
            tilt = math.radians(30 * rng.random() ** 1.5)
        else:
            # Phone photos of dice on a table are often oblique: up to 60 degrees off vertical.
            height = U * rng.uniform(0.10, 0.60)
            tilt = math.radians(60 * rng.random() ** 1.3)
        azimuth = rng.uniform(0, 2 * math.pi)
        target = Vector((U * rng.uniform(-0.02, 0.02), U * rng.uniform(-0.02, 0.02), 0.0))
        offset = height * math.tan(tilt)
        camera.location = target + Vector((offset * math.cos(azimuth), offset * math.sin(azimuth),
                                           height))
        look = (target - camera.location).to_track_quat("-Z", "Y")
        roll = Matrix.Rotation(rng.uniform(0, 2 * math.pi), 4, "Z")
        camera.matrix_world = Matrix.Translation(camera.location) @ look.to_matrix().to_4x4() @ roll
        # Field of view: the dice area fills a random share of the frame (the appliance frames
        # its tray; a generic photo may be close up or far away).
        distance = (target - camera.location).length
        span = max(self.area) * (rng.uniform(1.0, 1.6) if self.kind == "appliance"
                                 else rng.uniform(0.5, 1.8))
        fov = 2 * math.atan(span / 2 / distance)
        fov = min(max(fov, math.radians(25)), math.radians(100))
        data.angle = fov
        data.clip_start, data.clip_end = 0.01 * U, 10.0 * U
        self.camera = camera
        self.conditions.update(height_m=round(height / U, 3), tilt_deg=round(math.degrees(tilt), 1),
                               fov_deg=round(math.degrees(fov), 1))

    # Placing the dice ---------------------------------------------------------------------
    def _drop_zone(self) -> tuple[float, float]:
        return self.area[0] / 2 - 0.012 * U, self.area[1] / 2 - 0.012 * U

    def place_apart(self, dice: list[dict]) -> None:
        """Lay the dice flat and apart and wholly in view, as a user lays them for calibration
        (no simulation): in version 1, 6 of 22 validation calibration frames had a die cut by
        the frame's edge, and calibration rightly refused them."""
        rng = self.rng
        hx, hy = self._drop_zone()
        placed: list[Vector] = []
        for die in dice:
            for _ in range(500):
                p = Vector((rng.uniform(-hx, hx), rng.uniform(-hy, hy), 0))
                apart = all((p - q).length > die["size"] * 2.2 for q in placed)
                if apart and self._wholly_in_view(p + Vector((0, 0, self.floor_z)), die["size"]):
                    break
            placed.append(p)
            turn = _value_up(rng.randint(1, 6))
            yaw = Matrix.Rotation(rng.uniform(0, 2 * math.pi), 4, "Z")
            resting = p + Vector((0, 0, self.floor_z + die["size"] / 2))
            die["obj"].matrix_world = (Matrix.Translation(resting)
                                       @ yaw @ turn @ Matrix.Diagonal((die["size"],) * 3 + (1,)))

    def throw(self, dice: list[dict], hidden: list[dict]) -> None:
        """Drop the dice (and distractors) into the tray and let Bullet settle them; in
        ``leaning_throws`` of the throws (LEANING_THROWS unless the set says otherwise) two of
        them start as one die cocked against another."""
        rng = self.rng
        scene = self.scene
        scene.frame_set(1)
        hx, hy = self._drop_zone()
        spread = rng.choice([0.3, 0.6, 1.0, 1.0])  # small spreads make heaps
        cx, cy = rng.uniform(-hx, hx) * (1 - spread), rng.uniform(-hy, hy) * (1 - spread)
        huddle = len(dice) >= 2 and rng.random() < HUDDLE_THROWS
        leaning = (self._leaning_pair(dice)
                   if not huddle and len(dice) >= 2 and rng.random() < self.leaning_throws
                   else {})
        pen = self._stand_pen(dice) if huddle else None
        if pen is None:
            self._take_pen_away()
        self.conditions["huddle"] = huddle
        for die in dice:
            die["obj"].rigid_body.friction = die["friction"]
            if die["obj"].name in leaning:
                die["obj"].matrix_world = leaning[die["obj"].name]
                die["obj"].hide_render = False
                die["obj"].rigid_body.enabled = True
                die["obj"].rigid_body.friction = LEAN_FRICTION
        placed = [pose.translation for pose in leaning.values()]
        for index, die in enumerate(d for d in dice if d["obj"].name not in leaning):
            height = self.floor_z + U * (0.015 + 0.012 * index + rng.uniform(0, 0.015))
            if pen is not None:  # anywhere a die fits inside the pen
                centre, radius = pen
                reach = max(0.0, radius - 0.75 * die["size"])
                angle, out = rng.uniform(0, 2 * math.pi), reach * math.sqrt(rng.random())
                p = centre + Vector((out * math.cos(angle), out * math.sin(angle), height))
            else:
                for _ in range(20):  # dropped clear of the leaning pair, not into it
                    p = Vector((cx + rng.uniform(-hx, hx) * spread,
                                cy + rng.uniform(-hy, hy) * spread, height))
                    if all((p.xy - q.xy).length > 2.5 * die["size"] for q in placed):
                        break
            roll_x = Matrix.Rotation(rng.uniform(0, 6.3), 4, "X")
            rot = roll_x @ Matrix.Rotation(rng.uniform(0, 6.3), 4, "Y")
            yaw = Matrix.Rotation(rng.uniform(0, 6.3), 4, "Z")
            die["obj"].matrix_world = (Matrix.Translation(p) @ yaw @ rot
                                       @ Matrix.Diagonal((die["size"],) * 3 + (1,)))
            die["obj"].hide_render = False
            die["obj"].rigid_body.enabled = True
        for index, die in enumerate(hidden):
            away = (U * (5.0 + 0.1 * index), 5.0 * U, 0.01 * U)
            die["obj"].matrix_world = Matrix.Translation(away)
            die["obj"].hide_render = True
            die["obj"].rigid_body.enabled = False
        for index, obj in enumerate(self.distractors):
            obj.location = (rng.uniform(-hx, hx), rng.uniform(-hy, hy),
                            self.floor_z + U * (0.01 + 0.01 * index))
        scene.rigidbody_world.point_cache.frame_start = 1
        bpy.ops.ptcache.free_bake_all()
        for frame in range(1, scene.frame_end + 1):
            scene.frame_set(frame)
        self._place_hand()

    def _stand_pen(self, dice: list[dict]) -> tuple[Vector, float]:
        """Stand the huddle's invisible pen somewhere in the drop zone (made at the first
        huddle, moved away before a throw that is none): its centre and inner radius."""
        rng = self.rng
        size = max(die["size"] for die in dice)
        half_angle = math.pi / PEN_SIDES
        radius = _pen_radius(len(dice), size, rng.uniform(*HUDDLE_AREA_PER_DIE))
        if not self.pen:  # walls long enough for the widest pen: 20 dice, the most a scene has
            widest = 2.0 * math.tan(half_angle) * _pen_radius(20, size, HUDDLE_AREA_PER_DIE[1])
            for k in range(PEN_SIDES):  # "keep-": the rays that find what the camera sees skip it
                wall = add_box(f"keep-pen-{k}", (0.01 * U, 1.2 * widest, U), (5 * U, 5 * U, 0),
                               principled(f"keep-pen-{k}", (0, 0, 0), 1.0))
                wall.hide_render = True
                make_rigid(wall, "PASSIVE")
                self.pen.append(wall)
        hx, hy = self._drop_zone()
        centre = Vector((rng.uniform(-1, 1) * max(0.0, hx - radius),
                         rng.uniform(-1, 1) * max(0.0, hy - radius), 0.0))
        yaw = rng.uniform(0, 2 * math.pi)
        for k, wall in enumerate(self.pen):
            angle = yaw + 2 * half_angle * k
            reach = radius + 0.005 * U
            wall.location = (centre.x + reach * math.cos(angle), centre.y + reach * math.sin(angle),
                             U / 2)
            wall.rotation_euler = (0, 0, angle)
        return centre, radius

    def _take_pen_away(self) -> None:
        """Out of the way before a throw that is no huddle (moved before the simulation runs:
        moving a body afterwards would make Blender simulate the throw again)."""
        for k, wall in enumerate(self.pen):
            wall.location = (5 * U + 0.1 * U * k, -5 * U, U / 2)

    def _leaning_pair(self, dice: list[dict]) -> dict:
        """Two dice posed as a die cocked against another (their objects' names to their poses): the
        base lies flat; the leaner stands on one edge, its top face turned LEAN_DEG away from
        the base and its opposite lower edge against the base's side. A cube leans so only past
        45 degrees from a face (its centre then lies beyond the edge it stands on), which is a
        top face tilted under 45 degrees the other way: dice dropped together almost never end
        so, but dice at a table often do."""
        rng = self.rng
        base, leaner = rng.sample(dice, 2)
        hx, hy = self._drop_zone()
        reach = base["size"] + 1.5 * leaner["size"]
        centre = Vector((rng.uniform(-hx + reach, hx - reach) if hx > reach else 0.0,
                         rng.uniform(-hy + reach, hy - reach) if hy > reach else 0.0, 0.0))
        yaw = rng.uniform(0, 2 * math.pi)
        base_pose = (Matrix.Translation(centre + Vector((0, 0, self.floor_z + base["size"] / 2)))
                     @ Matrix.Rotation(yaw, 4, "Z") @ _value_up(rng.randint(1, 6))
                     @ Matrix.Diagonal((base["size"],) * 3 + (1,)))
        towards = yaw + rng.randrange(4) * math.pi / 2  # square onto one of the base's sides
        tilt = math.radians(rng.uniform(*LEAN_DEG))
        half_span = leaner["size"] / 2 * (math.cos(tilt) + math.sin(tilt))
        away = base["size"] / 2 + 0.02 * leaner["size"] + half_span
        where = centre - Vector((math.cos(towards), math.sin(towards), 0)) * away
        where.z = self.floor_z + half_span
        leaner_pose = (Matrix.Translation(where) @ Matrix.Rotation(towards, 4, "Z")
                       @ Matrix.Rotation(-tilt, 4, "Y")
                       @ Matrix.Rotation(rng.randrange(4) * math.pi / 2, 4, "Z")
                       @ _value_up(rng.randint(1, 6))
                       @ Matrix.Diagonal((leaner["size"],) * 3 + (1,)))
        return {base["obj"].name: base_pose, leaner["obj"].name: leaner_pose}

    def _place_hand(self) -> None:
        if self.hand is None:
            return
        rng = self.rng
        hx, hy = self._drop_zone()
        side = rng.choice([-1, 1])
        self.hand.location = (side * (hx + U * rng.uniform(0.0, 0.06)), rng.uniform(-hy, hy),
                              self.floor_z + U * rng.uniform(0.02, 0.06))
        self.hand.rotation_euler = (0, 0, rng.uniform(-0.6, 0.6))

    # Labels -------------------------------------------------------------------------------
    def _pixel(self, point: Vector) -> tuple[float, float, float]:
        co = world_to_camera_view(self.scene, self.camera, point)
        return co.x * self.width, (1.0 - co.y) * self.height, co.z

    def describe(self, die: dict, others: list[dict]) -> dict:
        obj = die["obj"]
        matrix = obj.matrix_world.copy()
        rotation = matrix.to_3x3().normalized()
        ups = {value: (rotation @ Vector(face[0])).z for value, face in FACES.items()}
        value = max(ups, key=ups.get)
        lean = math.degrees(math.acos(max(-1.0, min(1.0, ups[value]))))
        points = [self._pixel(matrix @ v.co) for v in obj.data.vertices]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        box = [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
        normal, u_axis, v_axis = (Vector(a) for a in FACES[value])
        corners = [self._pixel(matrix @ (normal * 0.5 + u_axis * su * 0.5 + v_axis * sv * 0.5))
                   for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        depsgraph = bpy.context.evaluated_depsgraph_get()
        eye = self.camera.matrix_world.translation

        def place(cu: int, cv: int) -> Vector:
            """A place on the top face's 3 x 3 pip grid, in the die's own coordinates."""
            return normal * 0.5 + (u_axis * cu + v_axis * cv) * self.style["pip_offset"]

        # Every place a pip could be, seen or not: a face whose own pips are seen may still
        # hide a place where another value has one (a hand over the middle of a two hides
        # whether it is a two or a three). A pip is seen when its place is.
        places_seen = [self._seen(depsgraph, eye, matrix @ place(cu, cv), obj, die["size"])
                       for cu, cv in PLACES]
        pips = []
        for cu, cv in PIP_CELLS[value]:
            local = place(cu, cv)
            x, y, _ = self._pixel(matrix @ local)
            edge = self._pixel(matrix @ (local + u_axis * self.style["pip_radius"]))
            radius = math.hypot(edge[0] - x, edge[1] - y)
            pips.append({"x": round(x, 1), "y": round(y, 1), "r": round(radius, 2),
                         "visible": places_seen[PLACES.index((cu, cv))]})
        touching = any(_touching(die, other) for other in others if other is not die)
        return {"colour": die["colour"], "value": value, "box": [round(b, 1) for b in box],
                "top_face": [[round(c[0], 1), round(c[1], 1)] for c in corners],
                "pips": pips, "places_seen": places_seen, "lean_deg": round(lean, 1),
                "touching": touching, "flipped": die["flipped"]}

    def _seen(self, depsgraph, eye: Vector, point: Vector, obj, size: float) -> bool:
        """Whether the camera sees ``point`` on ``obj``: the first thing a ray from the camera
        meets that a camera can see (the invisible walls are skipped) is that die, there.
        Version 5 gave up after 8 hits: a ray down into a corner of the huddle's pen, where its
        walls cross, through a keeper met 8 invisible walls first, and faces in plain view were
        labelled "pips hidden from the camera"."""
        origin = eye.copy()
        direction = (point - eye).normalized()
        for _ in range(2 * INVISIBLE_WALLS + 1):
            remaining = (point - origin).length + 0.3 * size
            hit, location, _, _, hit_obj, _ = self.scene.ray_cast(depsgraph, origin, direction,
                                                                   distance=remaining)
            if not hit or hit_obj is None:
                return False
            if hit_obj.name.startswith("keep-"):
                origin = location + direction * 0.001 * size
                continue
            return hit_obj.name == obj.name and (location - point).length < size * 0.2
        return False

    def render(self, out_dir: Path, name: str, dice: list[dict], removed: list[str],
               kind: str) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        self.scene.render.filepath = str(out_dir / f"{name}.png")
        bpy.ops.render.render(write_still=True)
        record = {
            "image": f"{self.id}/{name}.jpg", "scenario": self.id, "kind": kind,
            "removed": removed, "conditions": self.conditions,
            "size": [self.width, self.height],
            "dice": [self.describe(die, dice) for die in dice],
            "distractors": [o.name for o in self.distractors if self._in_view(o)],
        }
        (out_dir / f"{name}.json").write_text(json.dumps(record))

    def _wholly_in_view(self, point: Vector, size: float) -> bool:
        """Whether a die of ``size`` lying at ``point`` is inside the frame with a side to spare."""
        corners = [point + Vector((dx, dy, dz)) * size for dx in (-1, 1) for dy in (-1, 1)
                   for dz in (0, 1)]
        for x, y, z in map(self._pixel, corners):
            if z <= 0 or not (0 <= x < self.width and 0 <= y < self.height):
                return False
        return True

    def _in_view(self, obj) -> bool:
        x, y, z = self._pixel(obj.matrix_world.translation)
        return z > 0 and 0 <= x < self.width and 0 <= y < self.height

    def render_all(self, out_root: Path, rolls: int) -> None:
        out_dir = out_root / self.id
        rng = self.rng
        if self.kind == "appliance":
            self.throw_hidden_distractors_away()
            self.place_apart(self.dice)
            self.render(out_dir, "calibration", self.dice, [], "calibration")
            removed: list[str] = []
            for roll in range(1, rolls + 1):
                if roll > rolls // 2 and len(removed) < 2 and rng.random() < 0.3:
                    removed.append(rng.choice([c for c in ("red", "yellow", "green", "blue")
                                               if c not in removed]))
                in_play = [d for d in self.dice if d["colour"] not in removed]
                out = [d for d in self.dice if d["colour"] in removed]
                self.throw(in_play, out)
                self.render(out_dir, f"roll_{roll:03d}", in_play, sorted(removed), "roll")
        else:
            for roll in range(1, rolls + 1):
                self.throw(self.dice, [])
                self.render(out_dir, f"roll_{roll:03d}", self.dice, [], "roll")

    def throw_hidden_distractors_away(self) -> None:
        """Calibration shows the tray with the dice only."""
        for index, obj in enumerate(self.distractors):
            obj.location = (U * (4.0 + index), 4.0 * U, 0.01 * U)
        if self.hand is not None:
            self.hand.location = (4.0 * U, -4.0 * U, 0.5 * U)


def _pen_radius(count: int, size: float, area_per_die: float) -> float:
    """The inner radius of the PEN_SIDES-sided pen whose floor gives ``count`` dice of side
    ``size`` ``area_per_die`` footprints each (a regular polygon's area is sides x tan(half its
    angle) x radius squared)."""
    per_unit = PEN_SIDES * math.tan(math.pi / PEN_SIDES)
    return math.sqrt(count * size * size * area_per_die / per_unit)


def _touching(die: dict, other: dict) -> bool:
    """Whether two dice touch (within TOUCH_GAP of the larger's side): their heights overlap
    and no axis separates their outlines seen from above (the separating axis test on the
    convex hulls of their corners). Version 4 asked for centres within 1.08 sides, which
    only dice pressed face to face and squared to each other meet: two dice touching corner
    to face, as most huddled dice do, lie up to 1.4 sides apart."""
    gap = TOUCH_GAP * max(die["size"], other["size"])
    corners = [[obj.matrix_world @ Vector(corner) for corner in CUBE_CORNERS]
               for obj in (die["obj"], other["obj"])]
    if (min(p.z for p in corners[0]) > max(p.z for p in corners[1]) + gap
            or min(p.z for p in corners[1]) > max(p.z for p in corners[0]) + gap):
        return False
    outlines = []
    for points in corners:
        flat = [p.xy for p in points]
        outlines.append([flat[k] for k in convex_hull_2d(flat)])
    for outline in outlines:
        for k, start in enumerate(outline):
            edge = outline[(k + 1) % len(outline)] - start
            axis = Vector((-edge.y, edge.x))
            if axis.length == 0:
                continue
            axis.normalize()
            spans = [[axis.dot(p) for p in o] for o in outlines]
            if min(spans[0]) > max(spans[1]) + gap or min(spans[1]) > max(spans[0]) + gap:
                return False
    return True


def _value_up(value: int) -> Matrix:
    """The turn that puts ``value``'s face on top, the die's edges along the axes."""
    return Vector(FACES[value][0]).rotation_difference(Vector((0, 0, 1))).to_matrix().to_4x4()


def main() -> None:
    spec = json.loads(Path(sys.argv[sys.argv.index("--") + 1]).read_text())
    out = Path(spec["out"])
    for scene_spec in spec["scenes"]:
        if (out / scene_spec["id"] / "done").exists():
            continue
        scene = Scene(scene_spec, spec["width"], spec["height"], spec["samples"])
        scene.render_all(out, scene_spec["rolls"])
        (out / scene_spec["id"] / "done").write_text("")


if __name__ == "__main__":
    main()
