// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IERC20Balance {
    function balanceOf(address account) external view returns (uint256);
}

/**
 * A seller's payout contract on one chain. Sale proceeds are paid to it; `distribute` forwards its
 * token balance less a constant dust of 1 raw unit: floor(gross x sellerBps / 10000) to the
 * seller, floor(gross x platformBps / 10000) to the platform; the rounding remainder (0 or 1 unit)
 * stays with the dust, so at most 2 raw units remain after a payout. Seller, platform and
 * allocation are immutable: nobody can change them after creation.
 *
 * Anyone may call `distribute(token, minGrossRaw, sender)` (the `payout_now` recipe): recipients
 * are fixed, so the caller pays gas, gains nothing and cannot redirect funds; `minGrossRaw` makes
 * the call revert unless at least that much is forwarded; `sender` (the caller's own address) is
 * recorded in the event only.
 *
 * `withdraw(token)` is the same forwarding sent by the seller wallet itself (Revision A, spec 2.7:
 * "withdrawal is an on-chain withdraw(address token) call by the seller wallet"): the seller gets
 * its floor share and the platform its own, exactly as `distribute` pays them. `pending(token)`
 * tells what a call now would forward.
 */
contract PayoutSplitter {
    uint256 public constant TOTAL_BPS = 10_000;
    uint256 public constant DUST = 1;

    address public immutable seller;
    address public immutable platform;
    uint16 public immutable sellerBps;
    uint16 public immutable platformBps;

    event Distributed(
        address indexed token,
        address indexed sender,
        uint256 gross,
        uint256 sellerAmount,
        uint256 platformAmount
    );

    constructor(address seller_, address platform_, uint16 sellerBps_, uint16 platformBps_) {
        require(seller_ != address(0) && platform_ != address(0), "Payout: zero address");
        require(uint256(sellerBps_) + uint256(platformBps_) == TOTAL_BPS, "Payout: shares must total 10000");
        seller = seller_;
        platform = platform_;
        sellerBps = sellerBps_;
        platformBps = platformBps_;
    }

    function distribute(
        address token,
        uint256 minGrossRaw,
        address sender
    ) external returns (uint256 gross, uint256 sellerAmount, uint256 platformAmount) {
        return _distribute(token, minGrossRaw, sender);
    }

    function withdraw(address token) external returns (uint256 gross, uint256 sellerAmount, uint256 platformAmount) {
        require(msg.sender == seller, "Payout: only the seller withdraws");
        return _distribute(token, 0, msg.sender);
    }

    /// What a payout now would forward: gross (the balance less the dust) and the two floor shares.
    function pending(address token) public view returns (uint256 gross, uint256 sellerAmount, uint256 platformAmount) {
        uint256 balance = IERC20Balance(token).balanceOf(address(this));
        gross = balance > DUST ? balance - DUST : 0;
        sellerAmount = (gross * sellerBps) / TOTAL_BPS;
        platformAmount = (gross * platformBps) / TOTAL_BPS;
    }

    function _distribute(
        address token,
        uint256 minGrossRaw,
        address sender
    ) private returns (uint256 gross, uint256 sellerAmount, uint256 platformAmount) {
        (gross, sellerAmount, platformAmount) = pending(token);
        require(gross >= minGrossRaw, "Payout: less than minGrossRaw pending");
        if (sellerAmount > 0) _send(token, seller, sellerAmount);
        if (platformAmount > 0) _send(token, platform, platformAmount);
        emit Distributed(token, sender, gross, sellerAmount, platformAmount);
    }

    function _send(address token, address to, uint256 amount) private {
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSignature("transfer(address,uint256)", to, amount));
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))), "Payout: token transfer failed");
    }
}

/**
 * Deploys payout contracts with CREATE2, so a seller's payout address is known (from seller,
 * platform, allocation and salt) before it exists. Permissionless: the address commits to the
 * terms, so deploying someone else's contract can only create it with the intended terms.
 */
contract PayoutFactory {
    event PayoutDeployed(address indexed payout, address indexed seller, bytes32 salt);

    function deploy(
        address seller,
        address platform,
        uint16 sellerBps,
        uint16 platformBps,
        bytes32 salt
    ) external returns (address payout) {
        payout = predict(seller, platform, sellerBps, platformBps, salt);
        if (payout.code.length > 0) return payout;
        PayoutSplitter created = new PayoutSplitter{salt: salt}(seller, platform, sellerBps, platformBps);
        require(address(created) == payout, "PayoutFactory: unexpected address");
        emit PayoutDeployed(payout, seller, salt);
    }

    function predict(
        address seller,
        address platform,
        uint16 sellerBps,
        uint16 platformBps,
        bytes32 salt
    ) public view returns (address) {
        bytes32 initCodeHash = keccak256(
            abi.encodePacked(type(PayoutSplitter).creationCode, abi.encode(seller, platform, sellerBps, platformBps))
        );
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }
}
