// HS256 JSON Web Tokens with node:crypto, as GoTrue issues them and PostgREST checks them.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type JwtClaims = Record<string, unknown>;

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function signature(signingInput: string, secret: string): Buffer {
	return createHmac('sha256', secret).update(signingInput).digest();
}

export function signJwt(claims: JwtClaims, secret: string): string {
	const signingInput = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
	return `${signingInput}.${signature(signingInput, secret).toString('base64url')}`;
}

export type JwtVerification =
	| { ok: true; claims: JwtClaims }
	| { ok: false; problem: 'parts'; parts: number }
	| { ok: false; problem: 'malformed' | 'algorithm' | 'signature' };

function decodeJson(part: string): unknown {
	try {
		return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
	} catch {
		return undefined;
	}
}

/** Checks structure, algorithm and signature. Time claims are the caller's business (its clock). */
export function verifyJwt(token: string, secret: string): JwtVerification {
	const parts = token.split('.');
	if (parts.length !== 3) return { ok: false, problem: 'parts', parts: parts.length };
	const [headerPart, claimsPart, signaturePart] = parts;
	const header = decodeJson(headerPart);
	const claims = decodeJson(claimsPart);
	if (!isObject(header) || !isObject(claims)) return { ok: false, problem: 'malformed' };
	if (header.alg !== 'HS256') return { ok: false, problem: 'algorithm' };
	const expected = signature(`${headerPart}.${claimsPart}`, secret);
	const given = Buffer.from(signaturePart, 'base64url');
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
		return { ok: false, problem: 'signature' };
	}
	return { ok: true, claims };
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
