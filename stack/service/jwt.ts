// Why: the HS256 tokens GoTrue issues and PostgREST checks, signed and verified by jose.
import { SignJWT, compactVerify, errors } from 'jose';

export type JwtClaims = Record<string, unknown>;

const keyOf = (secret: string) => new TextEncoder().encode(secret);

export async function signJwt(claims: JwtClaims, secret: string): Promise<string> {
	return await new SignJWT(claims)
		.setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
		.sign(keyOf(secret));
}

export type JwtProblem = 'parts' | 'malformed' | 'algorithm' | 'signature';
export type JwtVerification = { ok: true; claims: JwtClaims } | { ok: false; problem: JwtProblem };

/** Checks structure, algorithm and signature. Time claims are the caller's business (its clock). */
export async function verifyJwt(token: string, secret: string): Promise<JwtVerification> {
	// GoTrue names a wrong number of segments apart from other malformed tokens.
	if (token.split('.').length !== 3) return { ok: false, problem: 'parts' };
	try {
		const { payload } = await compactVerify(token, keyOf(secret), { algorithms: ['HS256'] });
		const claims: unknown = JSON.parse(new TextDecoder().decode(payload));
		if (typeof claims === 'object' && claims !== null && !Array.isArray(claims))
			return { ok: true, claims: claims as JwtClaims };
	} catch (error) {
		if (error instanceof errors.JOSEAlgNotAllowed) return { ok: false, problem: 'algorithm' };
		if (error instanceof errors.JWSSignatureVerificationFailed)
			return { ok: false, problem: 'signature' };
	}
	return { ok: false, problem: 'malformed' };
}
