// The vehicles drawn by WebGL 2, in one draw of a triangle per vehicle. The rest of
// the picture is the 2-D overlay's (render.js); where the browser's WebGL is software
// (a machine without a GPU), the page draws the vehicles itself (raster.js). Each
// vehicle is three vertices the CPU places (in CSS pixels) and colours: SwiftShader,
// the software WebGL of a machine without a GPU, drew instanced triangles about ten
// times slower.
import { triangle } from './shape.js';

const VERTEX = `#version 300 es
in vec2 pixel;
in vec3 rgb;
uniform vec2 halfSize; // half the canvas, in CSS pixels
out vec3 colour;
void main() {
  gl_Position = vec4(pixel.x / halfSize.x - 1.0, 1.0 - pixel.y / halfSize.y, 0.0, 1.0);
  colour = rgb;
}`;

const FRAGMENT = `#version 300 es
precision mediump float;
in vec3 colour;
out vec4 outColour;
void main() { outColour = vec4(colour, 1.0); }`;

function compile(gl, type, source) {
  const s = gl.createShader(type);
  gl.shaderSource(s, source);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
  return s;
}

function rgb(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
}

export class VehicleLayer {
  // null when the browser has no WebGL 2.
  static create(canvas, palette) {
    const gl = canvas.getContext('webgl2', { antialias: false, alpha: false, depth: false });
    return gl ? new VehicleLayer(canvas, gl, palette) : null;
  }

  constructor(canvas, gl, palette) {
    this.canvas = canvas;
    this.gl = gl;
    const prog = gl.createProgram();
    gl.attachShader(prog, compile(gl, gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(prog, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(prog);
    if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(prog));
    this.prog = prog;
    this.halfSize = gl.getUniformLocation(prog, 'halfSize');
    this.vao = gl.createVertexArray();
    gl.bindVertexArray(this.vao);
    this.buf = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf);
    const pixel = gl.getAttribLocation(prog, 'pixel');
    gl.enableVertexAttribArray(pixel);
    gl.vertexAttribPointer(pixel, 2, gl.FLOAT, false, 20, 0);
    const rgbAt = gl.getAttribLocation(prog, 'rgb');
    gl.enableVertexAttribArray(rgbAt);
    gl.vertexAttribPointer(rgbAt, 3, gl.FLOAT, false, 20, 8);
    gl.bindVertexArray(null);
    this.palette = new Float32Array(palette.flatMap(rgb));
    this.data = new Float32Array(0);
    this.corners = new Float64Array(6);
  }

  // Whether the browser draws WebGL in software (no GPU): SwiftShader (Chromium),
  // llvmpipe or softpipe (Mesa), as the renderer's name says where the browser tells it.
  get software() {
    const info = this.gl.getExtension('WEBGL_debug_renderer_info');
    const name = info ? this.gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : '';
    return /swiftshader|llvmpipe|softpipe|software/i.test(String(name));
  }

  // Gives the context back, for a page that draws the vehicles another way.
  release() {
    const lose = this.gl.getExtension('WEBGL_lose_context');
    if (lose) lose.loseContext();
  }

  // Clears to the background, the world's rectangle a shade lighter, and draws n
  // vehicles that fill(data) wrote as x, y, hx, hy, group each.
  draw(cam, dpr, world, n, fill, size) {
    const gl = this.gl;
    const w = Math.round(cam.w * dpr), h = Math.round(cam.h * dpr);
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    gl.viewport(0, 0, w, h);
    gl.disable(gl.SCISSOR_TEST);
    gl.clearColor(0x10 / 255, 0x14 / 255, 0x1a / 255, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    if (world) {
      const [x0, y0] = cam.toScreen(0, 0), [x1, y1] = cam.toScreen(world.width, world.height);
      const sx0 = Math.max(0, Math.floor(x0 * dpr)), sx1 = Math.min(w, Math.ceil(x1 * dpr));
      const sy0 = Math.max(0, Math.floor(y0 * dpr)), sy1 = Math.min(h, Math.ceil(y1 * dpr));
      if (sx1 > sx0 && sy1 > sy0) {
        gl.enable(gl.SCISSOR_TEST);
        gl.scissor(sx0, h - sy1, sx1 - sx0, sy1 - sy0);
        gl.clearColor(0x16 / 255, 0x1c / 255, 0x24 / 255, 1);
        gl.clear(gl.COLOR_BUFFER_BIT);
        gl.disable(gl.SCISSOR_TEST);
      }
    }
    if (!n) return;
    if (this.data.length < n * 5) this.data = new Float32Array(Math.max(n * 5, this.data.length * 2));
    const used = fill(this.data);
    if (!used) return;
    // x, y, hx, hy, group each, into three coloured corners each.
    if (!this.verts || this.verts.length < used * 15) this.verts = new Float32Array(Math.max(used * 15, n * 15));
    const d = this.data, v = this.verts, pal = this.palette;
    const s = cam.scale, ox = cam.w / 2 - cam.cx * s, oy = cam.h / 2 - cam.cy * s;
    const t = this.corners;
    for (let k = 0; k < used; k++) {
      const i = k * 5, o = k * 15, g = (d[i + 4] % 8) * 3;
      triangle(t, d[i] * s + ox, d[i + 1] * s + oy, d[i + 2], d[i + 3], size);
      for (let j = 0; j < 3; j++) {
        v[o + j * 5] = t[j * 2];
        v[o + j * 5 + 1] = t[j * 2 + 1];
      }
      for (let j = 2; j < 15; j += 5) {
        v[o + j] = pal[g];
        v[o + j + 1] = pal[g + 1];
        v[o + j + 2] = pal[g + 2];
      }
    }
    gl.useProgram(this.prog);
    gl.uniform2f(this.halfSize, cam.w / 2, cam.h / 2);
    gl.bindVertexArray(this.vao);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf);
    gl.bufferData(gl.ARRAY_BUFFER, v.subarray(0, used * 15), gl.STREAM_DRAW);
    gl.drawArrays(gl.TRIANGLES, 0, used * 3);
    gl.bindVertexArray(null);
  }
}
