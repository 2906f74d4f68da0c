/** The password rule of every password a user sets (DECISIONS 4, 7): initial, reset, or through an invitation link. */
export const MIN_PASSWORD_LENGTH = 8;
